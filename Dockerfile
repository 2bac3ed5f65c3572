# syntax=docker/dockerfile:1
# cdkd-action: a static Go binary on a Node.js runtime that has cdkd installed.

ARG GO_VERSION=1.26
ARG NODE_VERSION=22

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/cdkd-action ./cmd/cdkd-action

FROM node:${NODE_VERSION}-bookworm-slim
# The cdkd release the action runs. Pinned: CI must not change under us.
ARG CDKD_VERSION=0.284.40
RUN npm install --global --no-fund --no-audit "@go-to-k/cdkd@${CDKD_VERSION}" \
 && cdkd --version \
 && npm cache clean --force
COPY --from=build /out/cdkd-action /usr/local/bin/cdkd-action
ENV CDKD_NO_LIVE=1
ENTRYPOINT ["/usr/local/bin/cdkd-action"]
