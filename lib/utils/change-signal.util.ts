/**
 * A wake-up for loops that wait until "something changed" (a slot freed, a
 * task finished, a stop): every `next()` pending when `notify()` is called
 * resolves, and later ones wait for the next notify.
 */
export class ChangeSignal {
  private wake: (() => void) | null = null;

  next(): Promise<void> {
    return new Promise((resolve) => {
      const previous = this.wake;
      this.wake = () => {
        previous?.();
        resolve();
      };
    });
  }

  notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
