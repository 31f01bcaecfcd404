/**
 * Redeeming a token from the page address, loaded on demand (see ../parts.ts): only the page a
 * login link or an OAuth/SSO redirect lands on carries one.
 */
export { redeemUrlToken } from '../urlTokenFlow';
