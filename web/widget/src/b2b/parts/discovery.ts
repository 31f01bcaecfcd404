/**
 * The discovery part of the login flow, loaded on demand (see ../parts.ts): what follows an email
 * verified without an organization (the organization list, creating or entering one).
 */
export { DiscoveryFlow } from '../discoveryFlow';
export { DiscoveryScreen } from '../screens/DiscoveryScreen';
