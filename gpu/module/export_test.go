package module

// Unexported plumbing for the package's external tests.
var (
	FromCodeObject = fromCodeObject
	RefinePTX      = refinePTX
)
