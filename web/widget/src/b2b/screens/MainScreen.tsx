import type { ReactNode } from 'react';
import { Heading } from '../../ui/Heading';
import { Spinner } from '../../ui/Spinner';
import { AuthFlowType } from '../config';
import { useLogin, type LoginContextValue } from '../context';
import { selectMainBlocks } from '../selectors';
import type { MainBlock } from '../methods';
import { EmailForm } from './EmailForm';

function title({ state, t }: LoginContextValue): string {
  const { type, organization } = state.flowState;
  switch (type) {
    case AuthFlowType.Discovery:
      return t('main.title.discovery');
    case AuthFlowType.PasswordReset:
      return '';
    case AuthFlowType.Organization:
      return organization
        ? t('main.title.organization', { organizationName: organization.organization_name })
        : t('main.title.organizationUnknown');
    default: {
      const never: never = type;
      throw new Error(`unknown flow ${String(never)}`);
    }
  }
}

function renderBlock(block: MainBlock, index: number) {
  switch (block.kind) {
    case 'emailForm':
      return <EmailForm key={`email-${index}`} block={block} />;
    default: {
      const never: never = block.kind;
      throw new Error(`unknown block ${String(never)}`);
    }
  }
}

/** Main: logos, title and the sign-in methods the organization allows. */
export function MainScreen() {
  const ctx = useLogin();
  const { state, config, t, presentation } = ctx;
  const organization = state.flowState.organization;
  const isOrganizationFlow = state.flowState.type === AuthFlowType.Organization;
  const blocks = selectMainBlocks(state, config);
  const logoUrl = organization?.organization_logo_url;

  let body: ReactNode;
  if (isOrganizationFlow && !organization) {
    body = <Spinner label={t('main.loadingOrganization')} />;
  } else if (state.flowState.type === AuthFlowType.Discovery) {
    body = <p className="lk-text">{t('main.discoveryUnavailable')}</p>;
  } else if (blocks.length === 0) {
    body = <p className="lk-text">{t('main.noMethods')}</p>;
  } else {
    body = blocks.map(renderBlock);
  }

  return (
    <>
      {logoUrl || presentation.logoImageUrl ? (
        <div className="lk-logos">
          {logoUrl ? (
            <img
              className="lk-logo"
              src={logoUrl}
              alt={t('main.organizationLogoAlt', { organizationName: organization?.organization_name ?? '' })}
            />
          ) : null}
          {presentation.logoImageUrl ? (
            <img className="lk-logo" src={presentation.logoImageUrl} alt={t('main.appLogoAlt')} />
          ) : null}
        </div>
      ) : null}
      <Heading hidden={presentation.hideHeaderText}>{title(ctx)}</Heading>
      {isOrganizationFlow && !organization ? <div className="lk-center">{body}</div> : body}
    </>
  );
}
