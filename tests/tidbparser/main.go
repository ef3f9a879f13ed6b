// tidb-parse checks SQL text with TiDB's own parser (github.com/pingcap/tidb/pkg/parser).
//
// It reads one JSON object per line on stdin, {"sql": "..."}, and answers one JSON object per line
// on stdout: {"ok": true, "statements": 2} or {"ok": false, "error": "line 1 column 15 near ..."}.
// One long-lived process serves a whole test session, so checking ten thousand statements costs
// one process start. The comment forms TiDB executes (/*T![clustered_index] NONCLUSTERED */) are
// parsed as TiDB parses them, which is the point: MySQL would read them as plain comments.
package main

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

type request struct {
	SQL string `json:"sql"`
}

type response struct {
	OK         bool   `json:"ok"`
	Statements int    `json:"statements"`
	Error      string `json:"error,omitempty"`
	Warnings   int    `json:"warnings"`
}

func main() {
	p := parser.New()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var req request
		var resp response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			resp = response{OK: false, Error: "bad request: " + err.Error()}
		} else {
			stmts, warns, err := p.Parse(req.SQL, "", "")
			if err != nil {
				resp = response{OK: false, Error: err.Error()}
			} else {
				resp = response{OK: true, Statements: len(stmts), Warnings: len(warns)}
			}
		}
		_ = enc.Encode(resp)
		_ = out.Flush()
	}
}
