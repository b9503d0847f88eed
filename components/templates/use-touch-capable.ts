"use client";

import { useSyncExternalStore } from "react";

const query = "(any-pointer: coarse)";

function subscribe(onChange: () => void) {
  const list = window.matchMedia(query);
  list.addEventListener("change", onChange);
  return () => list.removeEventListener("change", onChange);
}

/** True on a device with a touch screen (a tablet, a touch laptop): the editor then offers "Draw by touch". */
export function useTouchCapable(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches || navigator.maxTouchPoints > 0,
    () => false,
  );
}
