import { useEffect, useRef, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';
import { navigate } from '../router';

/** An in-app link: a real href (open in a new tab, copy) that navigates without a reload on a plain click. */
export function AdminLink({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}

/** Sets the browser tab's title for a dashboard page. */
export function pageTitle(...parts: string[]): string {
  return [...parts, 'Tandem researcher'].join(' · ');
}

let focusPending = false;

/** After an in-app navigation, the next page heading to appear takes focus (keyboard and screen-reader users start at the top). */
export function focusNextHeading(): void {
  focusPending = true;
}

export function PageHeading({ children, className }: { children: ReactNode; className?: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!focusPending || !ref.current) return;
    focusPending = false;
    ref.current.focus({ preventScroll: true });
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1} className={className}>
      {children}
    </h1>
  );
}
