# Interp Lab. `make run` serves the lab on http://localhost:8080;
# `make test` runs every check and test, real-browser tests included.

GO      ?= go
export GOTOOLCHAIN := local
GOROOT  := $(shell $(GO) env GOROOT)
ADDR    ?= localhost:8080
DIST    := web/dist
WASMEXEC := $(GOROOT)/lib/wasm/go_js_wasm_exec
# Fuzz targets run for FUZZTIME each in `make test`, longer with `make fuzz`.
FUZZTIME ?= 3s

.PHONY: run build wasm wasm-deps test lint test-js generate test-go test-wasm test-fuzz fuzz bench bench-browser bench-browser-engines browser-deps pg-deps team clean

run: build
	./bin/lab serve -addr $(ADDR)

# A team's lab on this machine: PostgreSQL, two labs behind nginx and two
# workers, on http://localhost:$(PORT)/ until Ctrl+C (.ci/team).
PORT ?= 8080
team: build pg-deps
	PORT=$(PORT) .ci/team

build: wasm
	$(GO) build -o bin/lab ./cmd/lab

# The WebAssembly engine, served precompressed; wasm_exec.js must come from
# the same Go that builds the module. packdata joins the linker's data
# segments, whose headers compress badly (wasm/packdata).
wasm:
	@mkdir -p $(DIST)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o $(DIST)/lab.wasm ./wasm
	$(GO) run ./wasm/packdata $(DIST)/lab.wasm
	@if command -v zopfli >/dev/null 2>&1; then \
		echo "zopfli $(DIST)/lab.wasm"; \
		zopfli -c $(DIST)/lab.wasm > $(DIST)/lab.wasm.gz.tmp && mv -f $(DIST)/lab.wasm.gz.tmp $(DIST)/lab.wasm.gz && rm -f $(DIST)/lab.wasm; \
	else \
		echo "zopfli is missing (apt-get install zopfli): lab.wasm is served gzip -9'd, about 5% larger"; \
		gzip -9 -n -f $(DIST)/lab.wasm; \
	fi
	cp -f $(GOROOT)/lib/wasm/wasm_exec.js $(DIST)/wasm_exec.js

generate:
	$(GO) tool templ generate -path templates

test: lint test-js wasm-deps wasm browser-deps pg-deps test-go test-wasm test-fuzz

# Every fuzz target of every package, found by go test -list: it prints a
# package's targets, then "ok <package>".
test-fuzz:
	@list=$$($(GO) test -list '^Fuzz' ./...) || { echo "$$list"; exit 1; }; \
	echo "$$list" | awk '/^Fuzz/ { f[n++] = $$1 } /^ok/ { for (i = 0; i < n; i++) print $$2, f[i]; n = 0 }' | \
	while read pkg f; do \
		echo "fuzz $$pkg $$f ($(FUZZTIME))"; \
		.ci/fuzz-one $$pkg $$f $(FUZZTIME) || exit 1; \
	done

lint:
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "not gofmt'd: $$bad"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./engine/... ./wasm/...
	$(GO) tool staticcheck ./...
	@if ls templates/*.templ >/dev/null 2>&1; then \
		$(GO) tool templ generate -path templates >/dev/null && \
		git diff --exit-code -- 'templates/*_templ.go' || { echo "templates/*_templ.go are stale: run make generate"; exit 1; }; \
	fi

# The page's JavaScript, type-checked by a pinned tsc against
# web/types/interplab.d.ts (wasm's TestAPIMatchesTypeDeclaration keeps that
# in step with the Go side).
test-js:
	@.ci/tsc-check

test-go:
	$(GO) test -count=1 -timeout=20m ./...
	# The golden numbers must not depend on fused multiply-add either.
	GOAMD64=v3 $(GO) test -count=1 -run 'Golden|Determinism' ./engine/... ./wasm/...

# The engine and the adapter under GOOS=js GOARCH=wasm, in Node.
test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASMEXEC)" ./engine/... ./wasm/...

fuzz:
	$(MAKE) test FUZZTIME=60s

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./engine/...

bench-browser: wasm browser-deps
	$(GO) test -run='^$$' -bench='BenchmarkBrowser$$' -benchtime=1x -timeout=20m ./cmd/lab/internal/server

# The same page in Chromium, Firefox and WebKitGTK, one run: cold start,
# frame rate, step and draw times per scene (BenchmarkBrowserEngines).
bench-browser-engines: wasm browser-deps
	$(GO) test -run='^$$' -bench='BenchmarkBrowserEngines' -benchtime=1x -timeout=30m ./cmd/lab/internal/server

# Debian's zopfli, which compresses the served lab.wasm, installed when missing.
wasm-deps:
	@.ci/install-zopfli

# The real-browser tests' engines, installed when missing: Debian's
# Chromium, Firefox ESR and WebKitGTK's WebDriver with Xvfb.
browser-deps:
	@.ci/install-browsers

# Debian's PostgreSQL (the store, live-sync and job tests start a server of
# their own from its binaries) and nginx (make team), installed when missing.
pg-deps:
	@.ci/install-postgres

clean:
	rm -rf bin $(DIST)/lab.wasm $(DIST)/lab.wasm.gz $(DIST)/wasm_exec.js cmd/lab/internal/server/testout
