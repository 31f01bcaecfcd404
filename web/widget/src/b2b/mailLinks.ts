import type { StringKey } from '../strings/en';

/**
 * The "check your email" screens' outside links (spec section 7: "Outside links open a mail search
 * page for Gmail, Yahoo, or the Outlook inbox"). The searches look at the last hour's mail in every
 * folder, so a message filed as spam or under a tab is found too; Outlook's web app has no search
 * address, so its inbox opens.
 */
export const MAIL_LINKS: readonly { label: StringKey; href: string }[] = [
  { label: 'emailConfirmation.openGmail', href: 'https://mail.google.com/mail/u/0/#search/in%3Aanywhere+newer_than%3A1h' },
  { label: 'emailConfirmation.openYahoo', href: 'https://mail.yahoo.com/d/search/keyword=newer_than%3A1h' },
  { label: 'emailConfirmation.openOutlook', href: 'https://outlook.live.com/mail/0/inbox' },
];
