/**
 * The SSO discovery screens (spec section 2): SSO Discovery Email, SSO Discovery Fallback (slug
 * entry) and SSO Discovery Menu (connection picker), in the SSO discovery part loaded on demand
 * (../parts.ts). They render the store and call the flow.
 */
import { useMemo, useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { Heading } from '../../ui/Heading';
import { Input } from '../../ui/Input';
import { useLogin } from '../context';
import { ssoLastUsed } from '../lastUsed';
import type { ButtonItem } from '../methods';
import { BackButton } from '../screens/BackButton';
import { EmailField } from '../screens/EmailField';
import { MethodButtons } from '../screens/MethodButtons';
import { useAsyncAction } from '../useAsyncAction';
import { ssoDiscoveryTranslator } from './strings';

/** The login context, the SSO discovery strings (with the integrator's overrides) and the flow. */
function useSsoDiscovery() {
  const ctx = useLogin();
  const { controller, stringsOverride } = ctx;
  const st = useMemo(() => ssoDiscoveryTranslator(stringsOverride), [stringsOverride]);
  return { ...ctx, st, flow: controller.ssoDiscovery };
}

export function SSODiscoveryEmailScreen() {
  const { state, st, flow } = useSsoDiscovery();
  const [email, setEmail] = useState(state.formState.emailState.userSuppliedEmail);
  const submit = useAsyncAction((value: string) => flow.discover(value));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit.run(email);
  };
  return (
    <>
      <Heading>{st('ssoDiscovery.email.title')}</Heading>
      <p className="lk-text">{st('ssoDiscovery.email.body')}</p>
      <form className="lk-form" onSubmit={onSubmit} noValidate>
        <EmailField value={email} onChange={setEmail} error={submit.error} autoComplete="email" />
        <Button type="submit" loading={submit.busy}>
          {st('ssoDiscovery.email.submit')}
        </Button>
      </form>
      <BackButton />
    </>
  );
}

export function SSODiscoveryFallbackScreen() {
  const { state, controller, st, flow } = useSsoDiscovery();
  const [slug, setSlug] = useState('');
  const submit = useAsyncAction((value: string) => flow.submitSlug(value, st));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit.run(slug);
  };
  return (
    <>
      <Heading>{st('ssoDiscovery.fallback.title', { email: state.formState.emailState.userSuppliedEmail })}</Heading>
      <p className="lk-text">{st('ssoDiscovery.fallback.body')}</p>
      <form className="lk-form" onSubmit={onSubmit} noValidate>
        <Input
          id="organization-slug-input"
          type="text"
          name="organization_slug"
          label={st('ssoDiscovery.fallback.slugLabel')}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          required
          value={slug}
          onValueChange={setSlug}
          error={submit.error}
        />
        <Button type="submit" loading={submit.busy}>
          {st('ssoDiscovery.fallback.submit')}
        </Button>
      </form>
      <Button variant="text" onClick={() => controller.returnToMain()}>
        {st('ssoDiscovery.fallback.otherMethod')}
      </Button>
    </>
  );
}

export function SSODiscoveryMenuScreen() {
  const { state, st } = useSsoDiscovery();
  const { lastUsedMethod } = state;
  // The menu's buttons are Main's SSO buttons: same labels, icons, 'Last used' mark and start.
  const items: ButtonItem[] = state.formState.ssoDiscoveryState.connections.map((connection) => ({
    kind: 'sso',
    connection,
    lastUsed: lastUsedMethod === ssoLastUsed(connection.connection_id),
  }));
  return (
    <>
      <Heading>{st('ssoDiscovery.menu.title')}</Heading>
      <p className="lk-text">{st('ssoDiscovery.menu.body', { email: state.formState.emailState.userSuppliedEmail })}</p>
      <MethodButtons items={items} />
      <BackButton />
    </>
  );
}
