# Oak Compendium server image: `docker build -t oak .` then
# `docker run -p 8080:8080 -v oak-data:/data oak` (the database, the owner key and the backups live in /data).

# Build stage: the Swift toolchain compiles a release binary with the Swift runtime linked in statically
# (scripts/build-release).
FROM swift:6.3-noble AS build
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends libsqlite3-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest first, so a change to the sources does not fetch the dependencies again.
COPY Package.swift ./
RUN swift package resolve
# SwiftPM checks every target's folder, test targets too, even when building one product.
COPY Sources ./Sources
COPY Tests ./Tests
COPY scripts/build-release ./scripts/
RUN scripts/build-release --product oak \
    && mkdir -p /staging \
    && cp "$(scripts/build-release --show-bin-path)/oak" /staging/ \
    && cp -R "$(scripts/build-release --show-bin-path)"/*.resources /staging/

# Runtime stage: the binary, its resource bundles, and the system libraries it links (SQLite, the C++ runtime,
# zlib), CA certificates for the CLI's HTTPS profiles and time zone data.
FROM ubuntu:noble
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends libsqlite3-0 libstdc++6 zlib1g ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin oak \
    && mkdir -p /data \
    && chown oak:oak /data
COPY --from=build /staging/ /app/
USER oak
WORKDIR /data
# HOME=/data keeps the generated owner key (~/.oak/api_key) on the volume; OAK_API_KEY overrides it.
ENV HOME=/data \
    OAK_HOST=0.0.0.0 \
    OAK_PORT=8080 \
    OAK_DB_PATH=/data/oak_compendium.db
EXPOSE 8080
VOLUME ["/data"]
ENTRYPOINT ["/app/oak"]
CMD ["serve", "--backup-dir", "/data/backups"]
