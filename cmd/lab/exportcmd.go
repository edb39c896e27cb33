package main

import (
	"io"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/export"
)

const exportUsage = `Usage: lab export [-format F] [-preset NAME] [-set name=value]...

Prints the settings as a file a game team pastes as is.

Flags:
`

// runExport is `lab export`.
func runExport(args []string, stdout, stderr io.Writer) int {
	c := cli.New("export", exportUsage, stdout, stderr)
	format := c.Flags.String("format", "json", "export `format`: "+export.Names())
	sf := c.SettingsFlags()
	if code, ok := c.Parse(args, 0); !ok {
		return code
	}
	s, err := sf.Settings()
	if err != nil {
		return c.Bad(err)
	}
	file, err := export.Render(*format, export.Origin{Preset: sf.Preset}, s)
	if err != nil {
		return c.Bad(err)
	}
	_, err = stdout.Write(file.Body)
	return c.Exit(err)
}
