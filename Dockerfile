# syntax=docker/dockerfile:1

# recap's image: compiled in a build stage, run from a slim image with production dependencies only,
# as the unprivileged `node` user. Node 20 is the version the project targets and tests; override
# with --build-arg NODE_VERSION=22 to run on a newer LTS.
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so editing the source does not invalidate the npm ci layer.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The default config, so the image also starts without a mount; a volume at /app/config replaces it.
COPY config/recap.yaml ./config/recap.yaml
USER node
EXPOSE 8787
# Slim images have no curl; node's fetch does the probe. PORT is honoured the same way `recap serve` does.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# recap handles SIGTERM itself (drains in-flight streams), so node runs as PID 1 without a shell.
CMD ["node", "dist/cli.js", "serve", "--config", "/app/config/recap.yaml"]
