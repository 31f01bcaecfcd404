import type { DiscoveredOrganization } from '../../api/types';
import { Button } from '../../ui/Button';
import { Divider } from '../../ui/Divider';
import { Heading } from '../../ui/Heading';
import { ArrowIcon } from '../../ui/icons';
import { useLogin } from '../context';
import { canCreateOrganization, membershipLabel } from '../discovery';

/**
 * The organization picker (spec section 4, "Discovery"): the organizations found for the verified
 * email; with none, an offer to create one or the 'does not belong to any organizations' message.
 */
export function DiscoveryScreen() {
  const { state, config, bootstrap } = useLogin();
  const organizations = state.formState.discoveryState.discoveredOrganizations;
  const canCreate = canCreateOrganization(bootstrap, config);
  if (organizations.length > 0) return <OrganizationList organizations={organizations} canCreate={canCreate} />;
  return canCreate ? <CreateOrganization /> : <NoOrganizations />;
}

function OrganizationList({ organizations, canCreate }: { organizations: DiscoveredOrganization[]; canCreate: boolean }) {
  const { controller, t } = useLogin();
  return (
    <>
      <Heading>{t('discovery.title')}</Heading>
      <ul className="lk-org-list" aria-label={t('discovery.listLabel')}>
        {organizations.map((d) => {
          const label = membershipLabel(d.membership.type);
          const org = d.organization;
          return (
            <li key={org.organization_id}>
              <button
                type="button"
                className="lk-org"
                onClick={() => void controller.discovery.selectOrganization(org.organization_id)}
              >
                <OrganizationLogo name={org.organization_name} url={org.organization_logo_url} />{' '}
                <span className="lk-org__name">{org.organization_name}</span>{' '}
                {label ? (
                  <span className="lk-org__action">{t(label === 'join' ? 'discovery.join' : 'discovery.acceptInvite')}</span>
                ) : (
                  <ArrowIcon />
                )}
              </button>
            </li>
          );
        })}
      </ul>
      {canCreate ? (
        <>
          <Divider text={t('divider.or')} />
          <Button variant="secondary" onClick={() => void controller.discovery.createOrganization()}>
            {t('discovery.create')}
          </Button>
        </>
      ) : null}
      <TryDifferentEmail />
    </>
  );
}

/** The organization's logo, or the first letter of its name when it has none (decorative: the name follows). */
function OrganizationLogo({ name, url }: { name: string; url: string }) {
  if (url) return <img className="lk-org__logo" src={url} alt="" />;
  return (
    <span className="lk-org__logo lk-org__logo--letter" aria-hidden="true">
      {Array.from(name.trim())[0]?.toUpperCase() ?? ''}
    </span>
  );
}

function CreateOrganization() {
  const { state, controller, t } = useLogin();
  const email = state.formState.discoveryState.email;
  return (
    <>
      <Heading>{t('discovery.createTitle')}</Heading>
      <p className="lk-text">{t('discovery.createBody', { email })}</p>
      <Button onClick={() => void controller.discovery.createOrganization()}>{t('discovery.create')}</Button>
      <TryDifferentEmail />
    </>
  );
}

function NoOrganizations() {
  const { state, t } = useLogin();
  const email = state.formState.discoveryState.email;
  return (
    <>
      <Heading>{t('discovery.noOrganizationsTitle', { email })}</Heading>
      <p className="lk-text">{t('discovery.noOrganizationsBody')}</p>
      <TryDifferentEmail />
    </>
  );
}

/** Back to the discovery Main to try another address; the previous one stays in the field so a typo is quick to fix. */
function TryDifferentEmail() {
  const { controller, t } = useLogin();
  return (
    <Button variant="text" onClick={() => controller.returnToMain()}>
      {t('discovery.tryDifferentEmail')}
    </Button>
  );
}
