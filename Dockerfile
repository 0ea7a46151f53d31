# Skygate's container image: `docker build -t skygate --build-arg VERSION=… --build-arg
# COMMIT=… .` The build stage runs scripts/build (static, -trimpath, version and
# commit stamped), the same build the deploy module's compose test runs; the image is
# that one binary on distroless (no shell, no package manager), as the user nonroot.
# README.md, "Operators", says how to run it.

ARG GO_VERSION=1.27.3

FROM golang:${GO_VERSION} AS build
# go.mod names this release: never fetch another one inside the build.
ENV GOTOOLCHAIN=local
WORKDIR /src
# Modules first, so that a change of the code alone reuses their layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN VERSION="${VERSION}" COMMIT="${COMMIT}" scripts/build /out/skygate \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/skygate /usr/local/bin/skygate
# SKYGATE_DATA_DIR, owned by nonroot: the SQLite database and, in development, the
# development PKI and the generated master key. A PostgreSQL production deployment
# writes nothing there; mount a volume on it only where it is used.
COPY --from=build --chown=nonroot:nonroot /out/data /var/lib/skygate
# In a container the listeners face the container's network, not loopback.
ENV SKYGATE_HTTP_ADDR=:8080 \
    SKYGATE_MTLS_ADDR=:8443 \
    SKYGATE_OPS_ADDR=:9090 \
    SKYGATE_DATA_DIR=/var/lib/skygate
USER nonroot:nonroot
WORKDIR /var/lib/skygate
# 8080 plain (partners' API, console), 8443 mutual TLS (booking), 9090 operator
# (/metrics, /healthz, /readyz: keep it off the partners' network).
EXPOSE 8080 8443 9090
ENTRYPOINT ["/usr/local/bin/skygate"]
CMD ["serve"]
