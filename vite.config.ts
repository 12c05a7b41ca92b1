import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The participant and admin sides share one client build; the server serves dist/client.
export default defineConfig({
  root: 'client',
  plugins: [react()],
  build: { outDir: '../dist/client', emptyOutDir: true },
  server: { proxy: { '/api': 'http://localhost:3000', '/socket.io': { target: 'http://localhost:3000', ws: true } } },
});
