/**
 * Password sign-in, loaded on demand (see ../parts.ts): the effects behind the password screens'
 * Continue buttons (member lookup, login, the emails that let a member set a password). The screens
 * stay in the main bundle, and the controller preloads this part where passwords are offered.
 */
export { PasswordFlow } from '../passwordFlow';
