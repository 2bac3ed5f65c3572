// Package assembly reads a synthesized CDK cloud assembly (a cdk.out
// directory) and finds where each template can put a secret into what cdkd
// prints: the property or output POSITIONS that read a NoEcho parameter or a
// {{resolve:...}} dynamic reference. Redacting by position hides a secret
// even when its value is too short or too common to redact by value.
package assembly

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Assembly is every stack of a cloud assembly, Stage assemblies and nested
// stacks included, sorted by name and region.
type Assembly struct {
	Stacks []Stack
	// templates are the templates Load read, as bytes, by file:
	// BindCreates reads created resources' properties from them instead of
	// reading the files again (which may have changed since), then lets
	// them go. Bytes, not the decoded tree: decoded, a template is ten
	// times its size, and a large app's would be held while its diff is
	// decoded and redacted.
	templates map[string][]byte
}

// Stack is one stack's template, reduced to what redaction needs.
type Stack struct {
	// Name is cdkd's stack name: properties.stackName, else the artifact id.
	// A nested stack (AWS::CloudFormation::Stack) is named like its cdkd
	// state: "<parent>~<logicalId>".
	Name string
	// DisplayName is the construct path cdkd also accepts ("Stage/Api").
	DisplayName string
	// ArtifactID is the manifest's artifact id ("" for a nested stack).
	ArtifactID string
	// DependsOn are the Names of the stacks the manifest says this one
	// depends on (its "dependencies" that are stacks), sorted: what cdkd
	// deploy adds to a deploy of this stack unless --exclusively.
	DependsOn []string `json:",omitempty"`
	// Parent is the parent stack's Name for a nested stack, else "".
	Parent string
	// Region and Account come from the artifact environment; "" when the
	// stack is environment-agnostic.
	Region, Account string
	// TemplateFile is the template's path: the directory given to Load
	// joined with the path the manifest names.
	TemplateFile string

	// NoEchoParams are the parameters declared NoEcho, sorted by name.
	NoEchoParams []Parameter
	// Outputs are the template's outputs, sorted by name.
	Outputs []Output
	// Positions are the places that read a NoEcho parameter or a dynamic
	// reference, sorted.
	Positions []Position
	// References are the dynamic references the properties and outputs
	// hold, one per position, sorted.
	References []Reference
	// Resources are the template's logical ids, sorted: a resource a
	// report names that is not here (removed or renamed since it was
	// deployed) has positions this assembly cannot tell.
	Resources []string `json:",omitempty"`
	// Types is each resource's Type by logical id (a resource whose entry
	// is not an object, or has no Type, is absent).
	Types map[string]string `json:",omitempty"`
	// Imports are the export names the template reads with
	// Fn::ImportValue, sorted; ImportsUnknown is true when one of them
	// cannot be spelled before deploying (it could be any export).
	Imports        []string `json:",omitempty"`
	ImportsUnknown bool     `json:",omitempty"`
	// Unknown says why this stack's positions are unknown ("" when they
	// are known): a nested stack whose template is not in the assembly.
	// Such a stack is listed so that nothing takes it for one without
	// secrets; every value in it is hidden.
	Unknown string `json:",omitempty"`
	// Literals are, by logical id, the leaves the template writes in
	// public (see Literal), in the order the trace met them.
	Literals map[string][]Literal `json:"-"`
	// outputLiterals are the outputs' literal values, each with the
	// outputs that write it.
	outputLiterals map[string][]string
}

// Placed reports whether the stack's template says where secrets sit at a
// resource: the template was found and has the resource.
func (s Stack) Placed(logicalID string) bool {
	if s.Unknown != "" {
		return false
	}
	_, ok := slices.BinarySearch(s.Resources, logicalID)
	return ok
}

// Parameter is a NoEcho parameter. cdkd has no --parameters, so a NoEcho
// value in a diff is its Default.
type Parameter struct {
	Name string
	// Default is the template default as CloudFormation would pass it
	// (numbers as written, lists comma-joined); nil when there is none.
	Default *string
}

// Output is one template output, as cdkd names its rows in a diff.
type Output struct {
	Name string
	// Exported is true when the output has an Export; Export is its name
	// when known without deploying (see Position.Export).
	Exported bool
	Export   string
}

// Kind says whether a position is in a resource or an output.
type Kind string

const (
	KindResource Kind = "resource"
	KindOutput   Kind = "output"
)

// Position is one place whose printed value reads a secret.
type Position struct {
	Kind Kind
	// LogicalID is the resource's logical id (KindResource).
	LogicalID string
	// Output is the output's logical name (KindOutput).
	Output string
	// Export is the output's export name when it is known without deploying
	// (a literal, or built from pseudo parameters this package knows): cdkd
	// prints an exported output a second time under this name.
	Export string
	// Path is the property path as cdkd prints it: keys joined by dots, list
	// indexes as numbers ("Tags.0.Value"). For an output, "" is its Value and
	// "Export.Name" its export name.
	Path string
	// Whole is true when the value at Path IS the secret (a Ref, a whole
	// dynamic reference), false when the secret is embedded in or derived
	// from it (Fn::Sub, Fn::Join, Fn::Base64, ...).
	Whole bool
	// Source is why the position is secret.
	Source model.SecretKind
	// Parameter names the NoEcho parameter read (Source NoEcho). In a nested
	// stack it is the parent's parameter that was passed down.
	Parameter string
	// Reference is the {{resolve:...}} spelling (Source reference).
	Reference string
	// Service is the reference's service (Source reference).
	Service dynref.Service
	// Secure is false only for a plain {{resolve:ssm:...}} reference that
	// nobody has confirmed to be a SecureString (see MarkSecureSSM): such a
	// position is recorded but not treated as secret.
	Secure bool
}

// Reference is one dynamic reference and the position it fills.
type Reference struct {
	dynref.Ref
	Position Position
	// Templated is true when part of the spelling comes from an intrinsic
	// (CDK writes {"Fn::Join": ["", ["{{resolve:secretsmanager:", {"Ref":
	// "Secret"}, ...]]}); those parts are shown as ${Name} in Raw and in the
	// parsed fields, and must be resolved before the value can be looked up.
	Templated bool
}

// IsAssembly reports whether dir holds a cloud assembly (manifest.json present).
func IsAssembly(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "manifest.json"))
	return err == nil && fi.Mode().IsRegular()
}

// Stack finds a stack by cdkd's stack name or, failing that, by display path.
func (a *Assembly) Stack(name string) (Stack, bool) {
	for _, s := range a.Stacks {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range a.Stacks {
		if s.DisplayName == name {
			return s, true
		}
	}
	return Stack{}, false
}

// StackIn finds a stack by name and region, as cdkd's reports name them. A
// stack whose region the assembly does not know matches any region.
func (a *Assembly) StackIn(name, region string) (Stack, bool) {
	var fallback *Stack
	for i, s := range a.Stacks {
		if s.Name != name && s.DisplayName != name {
			continue
		}
		if s.Region == region {
			return s, true
		}
		if s.Region == "" && fallback == nil {
			fallback = &a.Stacks[i]
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return Stack{}, false
}

// NoEchoDefault finds a NoEcho parameter's default in the stack or, for a
// value a parent passes down, in its ancestors (a nil Assembly: the stack
// alone).
func (a *Assembly) NoEchoDefault(st Stack, name string) (string, bool) {
	for depth := 0; depth < 32; depth++ {
		for _, p := range st.NoEchoParams {
			if p.Name == name && p.Default != nil {
				return *p.Default, true
			}
		}
		if st.Parent == "" || a == nil {
			return "", false
		}
		parent, ok := a.StackIn(st.Parent, st.Region)
		if !ok {
			return "", false
		}
		st = parent
	}
	return "", false
}

// MarkSecureSSM asks, once per plain {{resolve:ssm:...}} spelling, whether
// it names a SecureString, and makes the positions of those that do count as
// secret. The caller resolves; this package does no I/O beyond reading files.
func (a *Assembly) MarkSecureSSM(secure func(dynref.Ref) bool) {
	decided := map[string]bool{}
	for _, s := range a.Stacks {
		for _, r := range s.References {
			if r.Service != dynref.SSM {
				continue
			}
			if _, ok := decided[r.Raw]; !ok {
				decided[r.Raw] = secure(r.Ref)
			}
		}
	}
	for i := range a.Stacks {
		s := &a.Stacks[i]
		for j := range s.Positions {
			p := &s.Positions[j]
			if p.Service == dynref.SSM && decided[p.Reference] {
				p.Secure = true
			}
		}
		for j := range s.References {
			r := &s.References[j]
			if r.Service == dynref.SSM && decided[r.Raw] {
				r.Position.Secure = true
			}
		}
	}
}
