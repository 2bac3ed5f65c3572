package security

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// plainCorpus are documents of every shape near the plain one: each
// member a statement may have, in both forms, with each kind of value a
// template holds, plus what is not a plain document at all.
func plainCorpus() []string {
	docs := []string{
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`,
		`{"Statement":{"Effect":"Deny","NotAction":["b","a","b"],"NotResource":"*","NotPrincipal":"*"}}`,
		`{"Statement":[{"Sid":"x","Effect":"Allow","Principal":"*","Action":[],"Resource":["r2","r1"]},{"Effect":"Deny","Action":"*"}]}`,
		`{"Statement":[]}`, `{"Statement":null}`, `{"Statement":"x"}`, `{"Statement":[1]}`, `{"Statement":[{}]}`,
		`{"Version":"2012-10-17"}`, `{}`, `[]`, `"x"`, `null`, `***`, `{"Statement":[{"Effect":"Allow"}]}x`,
		`"{\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"a\"}]}"`,
		`{"Fn::If":["C",{"Statement":[]},{"Ref":"AWS::NoValue"}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"a"}],"Statement":[{"Effect":"Deny","Action":"b"}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"a","Action":"b"}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"a","NotAction":"b"}]}`,
		`{"Statement":[{"Effect":"Allow","Principal":"*","NotPrincipal":"x"}]}`,
		`{"Statement":[{"Effect":"Allow","Resource":"a","NotResource":"b"}]}`,
		`{"Statement":[{"Effect":"Allow","NotAction":"b","Action":"a"}]}`,
		`{"Statement":[{"Effect":"Allow","NotPrincipal":"x","Principal":"*"}]}`,
		`{"Statement":[{"Effect":"Allow","NotResource":"b","Resource":"a"}]}`,
		`{"Statement":[{"Effect":"allow","Action":"a"}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"\u0061\n\"q\""}]}`,
		"{\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"\xff\"}]}",
		`{"Statement":[{"Effect":"Allow","Action":"\ud800","Resource":"\ud83d\ude00"}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"a"}]} {}`,
		`{"St\u0061tement":[{"Effect":"Allow","Action":"a"}]}`,
		`  {"Statement" : [ {"Effect" : "Allow" , "Action" : [ "a" ] } ] }  `,
	}
	// Generated statements: each member in turn with each value.
	members := []string{"Sid", "Effect", "Principal", "NotPrincipal", "Action", "NotAction", "Resource", "NotResource", "Condition", "Other"}
	values := []string{`"*"`, `"Allow"`, `"Deny"`, `""`, `["b","a"]`, `[]`, `["a",1]`, `1`, `true`, `null`,
		`{"AWS":"arn:aws:iam::111122223333:root"}`, `{"Ref":"R"}`, `{"Fn::GetAtt":["R","Arn"]}`, `{"StringEquals":{"k":"v"}}`}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var sts []string
		for range 1 + rng.IntN(3) {
			var kv []string
			if rng.IntN(8) > 0 {
				kv = append(kv, `"Effect":`+[]string{`"Allow"`, `"Deny"`}[rng.IntN(2)])
			}
			for range rng.IntN(4) {
				kv = append(kv, fmt.Sprintf("%q:%s", members[rng.IntN(len(members))], values[rng.IntN(len(values))]))
			}
			sts = append(sts, "{"+strings.Join(kv, ",")+"}")
		}
		list := "[" + strings.Join(sts, ",") + "]"
		if len(sts) == 1 && rng.IntN(2) == 0 {
			list = sts[0]
		}
		docs = append(docs, `{"Version":"2012-10-17","Statement":`+list+`}`)
	}
	return docs
}

// plainStatements is a shortcut: wherever it reads a document, it must
// read what statements reads from the decoded value, and it must read the
// plain documents (else it saves nothing).
func TestPlainStatementsAreStatements(t *testing.T) {
	plain := 0
	for _, doc := range plainCorpus() {
		got, ok := plainStatements([]byte(doc))
		if !ok {
			continue
		}
		plain++
		want, wantOK := statements(decodeProperty(json.RawMessage(doc)))
		if !wantOK {
			t.Errorf("%s: read as plain, but statements reads no document", doc)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-statements +plain):\n%s", doc, diff)
		}
	}
	if plain < 300 {
		t.Errorf("only %d documents read as plain: want the plain shape read", plain)
	}
	for _, doc := range plainCorpus()[:3] {
		if _, ok := plainStatements([]byte(doc)); !ok {
			t.Errorf("%s: not read as plain", doc)
		}
	}
}

func FuzzPlainStatementsAreStatements(f *testing.F) {
	for _, doc := range plainCorpus()[:40] {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		got, ok := plainStatements([]byte(doc))
		if !ok {
			return
		}
		want, wantOK := statements(decodeProperty(json.RawMessage(doc)))
		if !wantOK {
			t.Fatalf("%s: read as plain, but statements reads no document", doc)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: (-statements +plain):\n%s", doc, diff)
		}
	})
}
