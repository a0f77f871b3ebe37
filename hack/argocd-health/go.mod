module github.com/berth-dev/berth/hack/argocd-health

go 1.24.0

require github.com/yuin/gopher-lua v1.1.2
