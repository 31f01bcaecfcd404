// Command latchkey is the Latchkey server and its operator CLI.
package main

import (
	"context"
	"os"

	"github.com/latchkey/latchkey/internal/cli"
)

func main() {
	os.Exit(cli.Run(context.Background(), cli.OSEnv()))
}
