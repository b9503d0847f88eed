import { useEffect, useState } from "react";

/** Below this the marking screen stops shrinking and the page scrolls instead (a phone, a split screen). */
const MIN_HEIGHT = 448;

/**
 * The height that takes an element from its top down to the window's bottom edge, less the gap the
 * page keeps below it, so the marking screen fills the window and the page itself never scrolls. Measured,
 * not guessed in CSS: the navigation above is a sidebar, a one-row bar or a two-row sticky bar depending
 * on the width, and the marking bar wraps differently on a tablet and a desktop. Takes the element itself
 * (a callback ref's state), as it mounts only once the screen has its data.
 */
export function useFillHeight(target: HTMLElement | null): number | null {
  const [height, setHeight] = useState<number | null>(null);
  useEffect(() => {
    if (!target) return;
    const measure = () => {
      const top = target.getBoundingClientRect().top + window.scrollY;
      // The main area's bottom padding, less what the marking screen takes back of it with a negative margin.
      const main = target.closest("main");
      const screen = target.parentElement;
      const below = (main ? parseFloat(getComputedStyle(main).paddingBottom) : 16) + (screen ? parseFloat(getComputedStyle(screen).marginBottom) : 0);
      setHeight(Math.max(MIN_HEIGHT, Math.floor(window.innerHeight - top - Math.max(0, below))));
    };
    measure();
    // Measured in the next frame: a change made here is then not observed within the same frame (a loop error).
    let frame = 0;
    const later = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(measure);
    };
    // What is above changes the body's size (the bar wraps, a status message shows) and so does the window.
    const observer = new ResizeObserver(later);
    observer.observe(document.body);
    if (target.previousElementSibling) observer.observe(target.previousElementSibling);
    window.addEventListener("resize", later);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      window.removeEventListener("resize", later);
    };
  }, [target]);
  return height;
}
