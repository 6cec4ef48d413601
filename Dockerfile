# One image per app: docker build --build-arg APP=charges -t pgw/charges .
# Multi-stage: dependencies are installed without dev packages and without install scripts; the runtime
# stage runs as the unprivileged `node` user and holds the workspace libraries and its own app only.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ARG APP
ENV NODE_ENV=production APP=${APP}
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.base.json tsconfig.json ./
COPY libs ./libs
COPY apps/${APP} ./apps/${APP}
USER node
EXPOSE 8080
# tsx runs the TypeScript sources with the workspace path aliases; the health route answers the probes.
CMD ["sh", "-c", "exec node node_modules/tsx/dist/cli.mjs apps/${APP}/src/main.ts"]
