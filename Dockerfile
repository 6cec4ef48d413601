# syntax=docker/dockerfile:1
# One image per app: docker build --build-arg APP=charges -t pgw/charges:dev .
# (apps: gateway vault charges ledger receivables anticipation webhooks acquirer-sim; docs/runbook.md)
#
# build:   the workspace's dependencies, then tools/deploy/bundle.ts bundles apps/$APP/src/main.ts and the
#          libraries it imports into /out/dist/main.js (esbuild, installed with tsx), copies the Avro
#          schemas beside it (libs/contracts reads <bundle dir>/../schemas), the gateway's API reference
#          script (/out/dist/api-reference.js, from @scalar/api-reference) and, into /out/node_modules,
#          only the packages kept out of the bundle: pg, which OpenTelemetry instruments by patching
#          require(), kafkajs, the OpenTelemetry SDK, and what they depend on.
# runtime: Node 24 slim, the bundle and those packages, owned by root and run as the unprivileged `node`
#          user (uid 1000, the Kubernetes manifests' runAsUser); nothing of the other apps, no npm cache,
#          no dev dependency, no TypeScript. The root filesystem can be mounted read-only.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Production dependencies only (tsx and its esbuild are among them); no install scripts run.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json ./
COPY tools/deploy/bundle.ts ./tools/deploy/
COPY libs ./libs
# The gateway serves the committed OpenAPI and AsyncAPI documents (bundled into its main).
COPY docs/openapi.json docs/asyncapi.json ./docs/
ARG APP
RUN test -n "${APP}" || { echo 'build with --build-arg APP=<app>' >&2; exit 1; }
COPY apps/${APP} ./apps/${APP}
# The gateway serves the dashboard: bundle.ts builds it with Vite into dist/dashboard (the other apps skip it).
COPY apps/dashboard ./apps/dashboard
RUN node node_modules/tsx/dist/cli.mjs tools/deploy/bundle.ts "${APP}" /out

FROM ${NODE_IMAGE} AS runtime
ARG APP
ENV NODE_ENV=production
LABEL org.opencontainers.image.title="pgw-${APP}" \
      org.opencontainers.image.description="Payment gateway: ${APP}"
WORKDIR /app
COPY --from=build /out ./
USER node
EXPOSE 8080
CMD ["node", "--enable-source-maps", "dist/main.js"]
