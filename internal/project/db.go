package project

import "github.com/latchkey/latchkey/internal/store"

// DB returns the database the store uses (for settings that modules keep
// in their own tables, such as the identity provider's, set from the CLI).
func (s *Store) DB() *store.DB { return s.db }
