package param

// Kind tells how a parameter's value is read and written.
type Kind uint8

const (
	Float Kind = iota // a real number
	Int               // a whole number
	Bool              // 0 or 1; true or false as text
	Enum              // an index into Choices; the choice's name as text
	Set               // a bit mask over Choices; comma-separated names as text
)

var kindNames = [...]string{"float", "int", "bool", "enum", "set"}

// String names the kind as GET /api/params and lab params -json give it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + FormatNumber(float64(k)) + ")"
}
