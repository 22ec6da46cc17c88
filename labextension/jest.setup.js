// jsdom has no DragEvent; @lumino/dragdrop (loaded by @lumino/widgets) subclasses it.
if (typeof globalThis.DragEvent === 'undefined') {
  globalThis.DragEvent = class DragEvent extends MouseEvent {};
}
