import { Button } from '../../ui/Button';
import { ErrorText } from '../../ui/ErrorText';
import { IdentityProviderIcon, KeyIcon, ProviderIcon } from '../../ui/brandIcons';
import { useLogin } from '../context';
import type { ButtonItem } from '../methods';
import { useAsyncAction } from '../useAsyncAction';
import { LastUsed } from './LastUsed';

function itemKey(item: ButtonItem): string {
  switch (item.kind) {
    case 'oauth':
      return `oauth-${item.provider}`;
    case 'sso':
      return `sso-${item.connection.connection_id}`;
    case 'ssoDiscovery':
      return 'sso-discovery';
    default: {
      const never: never = item;
      throw new Error(`unknown button ${JSON.stringify(never)}`);
    }
  }
}

/** A group of OAuth and SSO buttons; each leaves the page for the server's start URL. */
export function MethodButtons({ items }: { items: ButtonItem[] }) {
  const { controller, t } = useLogin();
  const start = useAsyncAction(async (item: ButtonItem) => {
    switch (item.kind) {
      case 'oauth':
        return controller.redirects.startOAuth(item.provider);
      case 'sso':
        return controller.redirects.startSso(item.connection.connection_id);
      case 'ssoDiscovery':
        return controller.startSsoDiscovery();
      default: {
        const never: never = item;
        throw new Error(`unknown button ${JSON.stringify(never)}`);
      }
    }
  });

  const label = (item: ButtonItem) => {
    switch (item.kind) {
      case 'oauth':
        return t('oauth.continueWith', { provider: t(`oauth.provider.${item.provider}`) });
      case 'sso':
        return t('sso.continueWith', { connectionName: item.connection.display_name });
      default:
        return t('sso.discovery');
    }
  };

  const icon = (item: ButtonItem) => {
    if (item.kind === 'oauth') return <ProviderIcon provider={item.provider} />;
    if (item.kind === 'sso') return <IdentityProviderIcon identityProvider={item.connection.identity_provider} />;
    return <KeyIcon />;
  };

  return (
    <div className="lk-button-group">
      {items.map((item) => (
        <LastUsed key={itemKey(item)} active={item.lastUsed}>
          {(describedBy) => (
            <Button
              variant="secondary"
              busy={start.busy}
              aria-describedby={describedBy}
              onClick={() => void start.run(item)}
            >
              {icon(item)}
              {label(item)}
            </Button>
          )}
        </LastUsed>
      ))}
      <ErrorText message={start.error} />
    </div>
  );
}
