# cdkd-action: a static Go binary on a Node.js runtime that has cdkd installed.
# Releases publish this image prebuilt (ghcr.io/<owner>/cdkd-action, pinned by
# digest in the release's action.yml); main builds it from source.

ARG GO_VERSION=1.26
ARG NODE_VERSION=22
# A release pins each base image by the digest it resolves
# (GO_DIGEST=@sha256:...) and records both in the image's labels and
# annotations (.github/workflows/release.yml); empty, the tags decide.
ARG GO_DIGEST=
ARG NODE_DIGEST=

FROM golang:${GO_VERSION}-bookworm${GO_DIGEST} AS build
# The action's version, shown by `cdkd-action --version`.
ARG VERSION=dev
WORKDIR /src
COPY . .
# go build downloads only the modules the binary imports, not the test-only
# ones (the AWS emulator, the OpenAPI validator, actionlint) that
# `go mod download` would fetch. No cache mounts: the runner may build this
# file with the classic builder.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/cdkd-action ./cmd/cdkd-action

FROM node:${NODE_VERSION}-bookworm-slim${NODE_DIGEST}
# The cdkd release the action bundles. Pinned: CI must not change under us.
# The build fails when that version does not install or reports another one.
ARG CDKD_VERSION=0.284.40
RUN npm install --global --no-fund --no-audit "@go-to-k/cdkd@${CDKD_VERSION}" \
 && v="$(cdkd --version | tail -n 1)" \
 && if [ "${v#v}" != "${CDKD_VERSION}" ]; then echo "cdkd --version says '${v}', expected ${CDKD_VERSION}" >&2; exit 1; fi \
 && npm cache clean --force
COPY --from=build /out/cdkd-action /usr/local/bin/cdkd-action
ENV CDKD_NO_LIVE=1
ENTRYPOINT ["/usr/local/bin/cdkd-action"]
