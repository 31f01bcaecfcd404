import type { ReactNode } from 'react';
import { Divider } from '../../ui/Divider';
import { Heading } from '../../ui/Heading';
import { Spinner } from '../../ui/Spinner';
import { AuthFlowType } from '../config';
import { useLogin, type LoginContextValue } from '../context';
import { selectMainBlocks } from '../selectors';
import type { MainBlock } from '../methods';
import type { Translate } from '../../strings/t';
import { BackButton } from './BackButton';
import { EmailForm } from './EmailForm';
import { MethodButtons } from './MethodButtons';
import { PasswordForm } from './PasswordEntry';

function title({ state, t }: LoginContextValue): string {
  const { type, organization } = state.flowState;
  switch (type) {
    case AuthFlowType.Discovery:
      // Spec section 2: the title follows the flow type alone. Choosing an organization that needs
      // another method (or finding one by slug in SSO discovery) stays in Discovery (spec section 4
      // stores the organization but never changes the flow), so its logo shows but not its name.
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

function renderBlock(block: MainBlock, index: number, t: Translate) {
  switch (block.kind) {
    case 'emailForm':
      return <EmailForm key={`email-${index}`} block={block} />;
    case 'passwordForm':
      return <PasswordForm key={`password-${index}`} lastUsed={block.lastUsed === 'passwords'} />;
    case 'buttons':
      return <MethodButtons key={`buttons-${index}`} items={block.items} />;
    case 'divider':
      return <Divider key={`divider-${index}`} text={t('divider.or')} />;
    default: {
      const never: never = block;
      throw new Error(`unknown block ${JSON.stringify(never)}`);
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
  } else if (blocks.length === 0) {
    body = <p className="lk-text">{t('main.noMethods')}</p>;
  } else {
    body = blocks.map((block, index) => renderBlock(block, index, t));
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
      <BackButton />
    </>
  );
}
