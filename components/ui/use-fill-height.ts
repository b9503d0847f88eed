import { type RefObject, useEffect, useState } from "react";

/**
 * The height that takes an element from its top down to the window's bottom edge, less the gap the page
 * keeps below it (the main area's bottom padding, less what a negative margin of the element's parent takes
 * back), never under `minHeight` (below it the page scrolls instead: a phone, a split screen). Measured,
 * not guessed in CSS: the navigation above is a sidebar, a one-row or a two-row bar depending on the width,
 * and the headers above the editor's paper and the marking screen wrap differently on a tablet and a
 * desktop and grow with status messages. Takes the element (a callback ref's state) or a ref object.
 */
export function useFillHeight(target: HTMLElement | null | RefObject<HTMLElement | null>, minHeight: number): number | null {
  const [height, setHeight] = useState<number | null>(null);
  useEffect(() => {
    const element = target && "current" in target ? target.current : target;
    if (!element) return;
    const measure = () => {
      if (element.clientWidth === 0) return; // hidden (the editor's Questions view on a narrow screen)
      const top = element.getBoundingClientRect().top + window.scrollY;
      const main = element.closest("main");
      const parent = element.parentElement;
      const below = (main ? parseFloat(getComputedStyle(main).paddingBottom) : 16) + (parent ? parseFloat(getComputedStyle(parent).marginBottom) || 0 : 0);
      setHeight(Math.max(minHeight, Math.floor(window.innerHeight - top - Math.max(0, below))));
    };
    measure();
    // Measured in the next frame: a change made here is then not observed within the same frame (a loop error).
    let frame = 0;
    const later = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(measure);
    };
    // What is above changes the body's size (a bar wraps, a status message shows) and so does the window;
    // the body keeps at least the window's height, so a header that shrinks is seen on the page's content.
    const observer = new ResizeObserver(later);
    observer.observe(document.body);
    const content = element.closest("main")?.firstElementChild;
    if (content) observer.observe(content);
    if (element.previousElementSibling) observer.observe(element.previousElementSibling);
    window.addEventListener("resize", later);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      window.removeEventListener("resize", later);
    };
  }, [target, minHeight]);
  return height;
}
