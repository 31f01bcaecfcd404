package oauth

import "context"

// MigrateSecretsRead is MigrateSecrets, reporting also how many rows it
// read: a test proves that a start with nothing left to reseal reads none.
func (m *Module) MigrateSecretsRead(ctx context.Context) (resealed, read int, err error) {
	return m.migrateSecrets(ctx)
}
