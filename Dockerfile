# syntax=docker/dockerfile:1
# The berth operator image: `docker build -t berth .`
# NODE_VERSION matches the `node` devDependency that the npm scripts run on.
ARG NODE_VERSION=24.21.0

# Compile TypeScript to dist/.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the only install script is the `node` devDependency's download of a second
# Node 24, which this image already is.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The commit `berth --version`, the first log line and berth_build_info report:
# `docker build --build-arg COMMIT=$(git rev-parse --short=12 HEAD) …`.
ARG COMMIT=""
RUN npm run build && printf '{"commit":"%s"}\n' "$COMMIT" > dist/build-info.json

# Production dependencies only, without type declarations and source maps (half their size).
FROM node:${NODE_VERSION}-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts \
  && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete

# Runtime: node, dist/ and production node_modules; no npm, no compiler.
FROM node:${NODE_VERSION}-bookworm-slim
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
  /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /opt/yarn-* /usr/local/bin/yarn /usr/local/bin/yarnpkg
WORKDIR /app
ENV NODE_ENV=production
COPY package.json ./
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Numeric, so the kubelet can verify runAsNonRoot; the files stay root-owned, read-only to it.
USER 65532:65532
EXPOSE 8080 8081
ENTRYPOINT ["node", "dist/main.js", "operator"]
