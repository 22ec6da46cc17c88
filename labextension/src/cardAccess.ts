/**
 * Approval cards for keyboard and screen-reader users. The kernel draws a card with
 * ipywidgets, which cannot set roles or move focus, so the page does it, keyed on the
 * classes the kernel gives the card's parts:
 * - a card (`.jdp-card-box`) is a group named by its title (the body's first heading);
 * - its status line (`.jdp-card-status`) is a polite live region (role=status) that can
 *   take the focus;
 * - when the button that had the focus is disabled or removed (the card was answered),
 *   the focus moves to the card's status line rather than falling to the page's body.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';

const CARD = 'jdp-card-box';
const STATUS = 'jdp-card-status';
let titles = 0;

/** Give the cards and status lines at or under `root` their roles and names. */
export function decorate(root: Element): void {
  const cards = [
    ...(root.classList.contains(CARD) ? [root] : []),
    ...Array.from(root.querySelectorAll(`.${CARD}`))
  ];
  for (const card of cards) {
    card.setAttribute('role', 'group');
    const title = card.querySelector('h1, h2, h3, h4, h5, h6');
    if (title) {
      if (!title.id) {
        title.id = `jdp-card-title-${++titles}`;
      }
      card.setAttribute('aria-labelledby', title.id);
    } else if (!card.hasAttribute('aria-label')) {
      card.setAttribute('aria-label', 'Approval card');
    }
  }
  const statuses = [
    ...(root.classList.contains(STATUS) ? [root] : []),
    ...Array.from(root.querySelectorAll(`.${STATUS}`))
  ];
  for (const status of statuses) {
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    status.setAttribute('aria-atomic', 'true');
    status.setAttribute('tabindex', '-1');
  }
}

/** Whether the focus has been lost: on nothing, the body, or the element itself. */
function focusLost(doc: Document, was: HTMLElement): boolean {
  const active = doc.activeElement;
  return !active || active === doc.body || active === was;
}

/**
 * Moves the focus to a card's status line when the control of the card that had it goes
 * away (removed or disabled). `check` is called on every DOM change.
 */
export class CardFocus {
  private _last: { control: HTMLElement; card: Element } | null = null;

  constructor(private _doc: Document) {}

  /** A focus went somewhere: remember it when it is a control of a card. */
  focused(target: EventTarget | null): void {
    const control = target instanceof HTMLElement ? target : null;
    const card = control?.closest(`.${CARD}`) ?? null;
    this._last = control && card && control !== card ? { control, card } : null;
  }

  check(): void {
    const last = this._last;
    if (!last) {
      return;
    }
    const { control, card } = last;
    const gone =
      !control.isConnected ||
      (control as HTMLButtonElement).disabled === true ||
      control.closest(`.${CARD}`) !== card;
    if (!gone || !focusLost(this._doc, control)) {
      return;
    }
    const status = card.querySelector<HTMLElement>(`.${STATUS}`);
    if (status && card.isConnected) {
      status.focus();
      this._last = null;
    }
  }
}

/** Watch `doc` for cards: decorate each as it appears, and keep the focus on answers. */
export function watchCards(doc: Document): MutationObserver {
  const focus = new CardFocus(doc);
  doc.addEventListener('focusin', event => focus.focused(event.target), true);
  decorate(doc.body);
  // ipywidgets inserts a view, then gives it its classes and its content: decorate the
  // card around any node added or given a class, as well as the cards under it
  const observer = new MutationObserver(records => {
    for (const record of records) {
      const touched =
        record.type === 'childList'
          ? Array.from(record.addedNodes)
          : record.attributeName === 'class'
            ? [record.target]
            : [];
      for (const node of touched) {
        if (node instanceof Element) {
          decorate(node);
          const card = node.closest(`.${CARD}`);
          if (card && card !== node) {
            decorate(card);
          }
        }
      }
    }
    focus.check();
  });
  observer.observe(doc.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ['disabled', 'class']
  });
  return observer;
}

export const cardAccessPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-design-projects:card-access',
  description:
    'Approval cards as named groups with a live status line that takes the focus once answered.',
  autoStart: true,
  activate: (_app: JupyterFrontEnd) => {
    watchCards(document);
  }
};
