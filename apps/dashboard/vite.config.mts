// Vite builds the dashboard into dist/, served by the gateway at /dashboard/ (apps/gateway/src/routes/dashboard.route.ts).
// An ES module (.mts): Vite loads it natively, and the workspace's TypeScript projects (CommonJS) leave it out.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const from = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const DOMAIN = /\/libs\/domain\/src\//;

export default defineConfig({
  root: from('.'),
  base: '/dashboard/',
  plugins: [react()],
  resolve: {
    alias: {
      '@pgw/sdk': from('../../libs/sdk/src/index.ts'),
      // The SDK's fixed lists of names come from the domain code that defines them.
      '@pgw/domain': from('../../libs/domain/src/index.ts'),
      '@pgw/webhook-signature': from('../../libs/webhook-signature/src/index.ts'),
      // The SDK's webhook verification needs Node's crypto; a browser never verifies a delivery.
      'node:crypto': from('src/no-node-crypto.ts'),
    },
  },
  build: {
    outDir: from('dist'),
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    // Domain code is pure (no I/O, nothing done at load): what the SDK's lists leave unused of it is left
    // out whole, Node-only parts (node:util, node:crypto) included.
    rollupOptions: { treeshake: { moduleSideEffects: (id: string) => !DOMAIN.test(id) } },
  },
  logLevel: 'warn',
});
