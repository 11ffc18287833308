import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmDialogProps {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** Whether the confirm button is off (nothing to do, or still counting). */
  confirmDisabled?: boolean;
  /** A destructive action's button is drawn as such. */
  danger?: boolean;
  onConfirm(): void;
  onClose(): void;
}

/**
 * A modal dialog (the browser's own: focus stays inside, Escape closes it)
 * that asks before an action. Focus starts on Cancel and returns to where it
 * was when the dialog closes.
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    cancel.current?.focus();
    return () => opener?.focus();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          props.onConfirm();
        }}
      >
        <h2 id="confirm-title">{props.title}</h2>
        <div class="confirm-body">{props.children}</div>
        <div class="buttons">
          <button type="button" ref={cancel} onClick={props.onClose}>
            Cancel
          </button>
          <button
            type="submit"
            class={props.danger ? 'danger' : 'primary'}
            disabled={props.confirmDisabled}
          >
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
