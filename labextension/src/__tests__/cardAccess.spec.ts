import { CardFocus, decorate, watchCards } from '../cardAccess';

/** A card as ipywidgets draws one: a box, its title, its buttons and its status line. */
function card(): HTMLElement {
  const box = document.createElement('div');
  box.className = 'jdp-card-box';
  box.innerHTML =
    '<div class="jdp-card"><h4>Allow writes?</h4></div>' +
    '<div class="jdp-card-buttons"><button>Approve</button><button>Deny</button></div>' +
    '<div class="jdp-card-status"></div>';
  document.body.appendChild(box);
  return box;
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('decorate', () => {
  it('names a card a group by its title and makes its status a polite live region', () => {
    const box = card();
    decorate(document.body);
    expect(box.getAttribute('role')).toBe('group');
    const title = document.getElementById(box.getAttribute('aria-labelledby')!);
    expect(title?.textContent).toBe('Allow writes?');
    const status = box.querySelector('.jdp-card-status')!;
    expect(status.getAttribute('role')).toBe('status');
    expect(status.getAttribute('aria-live')).toBe('polite');
    expect(status.getAttribute('tabindex')).toBe('-1');
  });

  it('gives a card with no title a name all the same', () => {
    const box = card();
    box.querySelector('h4')!.remove();
    decorate(box);
    expect(box.getAttribute('aria-label')).toBe('Approval card');
  });
});

describe('CardFocus', () => {
  it('moves the focus to the status line when the focused button goes', () => {
    const box = card();
    decorate(box);
    const focus = new CardFocus(document);
    const approve = box.querySelector('button')!;
    approve.focus();
    focus.focused(approve);
    box.querySelector('.jdp-card-buttons')!.innerHTML = '';
    focus.check();
    expect(document.activeElement).toBe(box.querySelector('.jdp-card-status'));
  });

  it('moves it when the focused button is disabled', () => {
    const box = card();
    decorate(box);
    const focus = new CardFocus(document);
    const deny = box.querySelectorAll('button')[1];
    deny.focus();
    focus.focused(deny);
    deny.disabled = true;
    focus.check();
    expect(document.activeElement).toBe(box.querySelector('.jdp-card-status'));
  });

  it('leaves the focus alone when the person moved it elsewhere', () => {
    const box = card();
    const other = document.createElement('button');
    document.body.appendChild(other);
    const focus = new CardFocus(document);
    const approve = box.querySelector('button')!;
    focus.focused(approve);
    other.focus();
    approve.remove();
    focus.check();
    expect(document.activeElement).toBe(other);
  });
});

describe('watchCards', () => {
  it('decorates a card added later, once it has its class', async () => {
    const observer = watchCards(document);
    const box = document.createElement('div');
    document.body.appendChild(box);
    box.innerHTML = '<h4>Later</h4><div class="jdp-card-status"></div>';
    box.className = 'jdp-card-box';
    await new Promise(resolve => setTimeout(resolve, 0));
    observer.disconnect();
    expect(box.getAttribute('role')).toBe('group');
    expect(box.querySelector('.jdp-card-status')!.getAttribute('role')).toBe(
      'status'
    );
  });
});
