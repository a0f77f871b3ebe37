// Command argocd-health evaluates an Argo CD resource health script the way Argo CD does: in
// gopher-lua, with only the libraries Argo CD opens for custom health checks (package, base and
// table; no string library), the object as the global `obj`, and a one-second budget.
//
// Usage: argocd-health SCRIPT.lua < object.json
// Prints {"status": ..., "message": ...} on stdout; a script error is printed on stderr with exit 1.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
)

type healthStatus struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// The statuses Argo CD accepts; anything else becomes Unknown, as in Argo CD.
var validStatuses = map[string]bool{
	"Unknown": true, "Progressing": true, "Suspended": true, "Healthy": true, "Degraded": true, "Missing": true,
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: argocd-health SCRIPT.lua < object.json")
		os.Exit(2)
	}
	result, err := run(os.Args[1], os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}

func run(scriptPath string, input io.Reader) (*healthStatus, error) {
	script, err := os.ReadFile(scriptPath)
	if err != nil {
		return nil, err
	}
	var object map[string]interface{}
	if err := json.NewDecoder(input).Decode(&object); err != nil {
		return nil, fmt.Errorf("stdin is not a JSON object: %w", err)
	}

	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", decodeValue(l, object))
	if err := l.DoString(string(script)); err != nil {
		return nil, err
	}

	returned, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("expect table output from Lua script, not %s", l.Get(-1).Type())
	}
	status := &healthStatus{
		Status:  lua.LVAsString(returned.RawGetString("status")),
		Message: lua.LVAsString(returned.RawGetString("message")),
	}
	if !validStatuses[status.Status] {
		return &healthStatus{Status: "Unknown", Message: "Lua returned an invalid health status"}, nil
	}
	return status, nil
}

// decodeValue turns decoded JSON into Lua values as Argo CD's decodeValue does.
func decodeValue(l *lua.LState, value interface{}) lua.LValue {
	switch converted := value.(type) {
	case bool:
		return lua.LBool(converted)
	case float64:
		return lua.LNumber(converted)
	case string:
		return lua.LString(converted)
	case []interface{}:
		table := l.CreateTable(len(converted), 0)
		for _, item := range converted {
			table.Append(decodeValue(l, item))
		}
		return table
	case map[string]interface{}:
		table := l.CreateTable(0, len(converted))
		for key, item := range converted {
			table.RawSetH(lua.LString(key), decodeValue(l, item))
		}
		return table
	}
	return lua.LNil
}
