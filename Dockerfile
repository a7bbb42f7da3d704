# meshinject: the sidecar-injection webhook (`meshinject serve`). Build:
#   docker build -t REGISTRY/meshinject:0.1.0 .
# deploy/deployment.yaml runs it; its args repeat the CMD below.

# Node 24: the Active LTS (maintained until April 2028); Node 20 reached its end of life on
# 2026-04-30. The code itself runs on Node 20.19 or later (package.json's engines).
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: package.json's "prepare" would build before the sources are copied in.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/cli-entry.cjs ./scripts/
COPY src ./src
# Compile, then drop the dev dependencies (TypeScript, test tools) from node_modules.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The image's `node` user, by number so that Kubernetes can check runAsNonRoot.
USER 1000:1000
EXPOSE 15017 15014
ENTRYPOINT ["node", "/app/dist/cli/main.js", "serve"]
CMD ["--port=15017", "--metrics-port=15014", "--tls-cert-file=/etc/meshinject/certs/tls.crt", "--tls-key-file=/etc/meshinject/certs/tls.key", "--config-dir=/etc/meshinject/config"]
