# syntax=docker/dockerfile:1

# recap's image: compiled in a build stage, run from a slim image with production dependencies only,
# as the unprivileged `node` user. Node 20 is the version the project targets and tests; override
# with --build-arg NODE_VERSION=22 to run on a newer LTS.
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so editing the source does not invalidate the npm ci layer. No scripts: the
# package's `prepare` (a build) needs the source, copied below; no dependency needs an install script.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The default config, so the image also starts without a mount; a volume at /app/config replaces it.
COPY config/recap.yaml ./config/recap.yaml
# Read by both `serve` and `health`; point it elsewhere to use another file.
ENV RECAP_CONFIG=/app/config/recap.yaml
USER node
EXPOSE 8787
# `recap health` finds the port as `recap serve` does (PORT, else the config's server.port), so the
# check follows a config that moves the port. Slim images have no curl; it needs none.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "dist/cli.js", "health"]
# recap handles SIGTERM itself (drains in-flight streams, and with --workers every worker), so
# node runs as PID 1 without a shell.
CMD ["node", "dist/cli.js", "serve"]
