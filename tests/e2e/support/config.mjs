// Where the binary under test and the MCP schemas are, from the environment (tests/e2e/run sets
// both; the defaults make `node --test` from tests/e2e work in a checkout with shared/ beside it).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const e2eDir = path.resolve(here, '..');

export const PADDOCK_BIN = path.resolve(e2eDir, process.env.PADDOCK_BIN || '../../build/paddock');
export const SCHEMA_DIR = path.resolve(e2eDir, process.env.PADDOCK_MCP_SCHEMAS || '../../../shared/mcp-schema');

for (const [what, p] of [['PADDOCK_BIN', PADDOCK_BIN], ['PADDOCK_MCP_SCHEMAS', SCHEMA_DIR]]) {
  if (!fs.existsSync(p)) throw new Error(`${what}: ${p} does not exist`);
}

// The server's latest legacy (initialize-era) revision and the stateless one.
export const LATEST_LEGACY = '2025-11-25';
export const MODERN = '2026-07-28';
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

// Cap on one line the server writes (the stdio transports of the SDKs buffer whole lines).
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

// The tools every server lists, whatever its settings.
export const EXPECTED_TOOLS = [
  'execute_code', 'get_supported_languages', 'get_language_details',
  'create_session', 'list_sessions', 'close_session', 'restart_session',
  'write_file', 'read_file', 'list_files', 'get_session', 'install_libraries',
];
// The tools only some settings list (issue 53: a tool that could only be refused is not listed),
// each with the setting that lists it: kept sessions (a state directory), a share, a :rw share,
// --allow-preview.
export const SETTING_TOOLS = {
  snapshot_session: '--state-dir', fork_session: '--state-dir', diff_session: '--state-dir',
  upload_file: '--share DIR', download_file: '--share DIR:rw', export_session: '--share DIR:rw',
  expose_port: '--allow-preview',
};
// Kept sessions, and the tools that need them, exist on the native backend alone: a container
// backend's server lists them under no setting.
export const KEEPS_SESSIONS = (process.env.PADDOCK_BACKEND || 'native') === 'native';
const KEPT_SESSION_TOOLS = ['snapshot_session', 'fork_session', 'diff_session', 'export_session'];
// The tools a server lists with every setting that lists one (on this backend).
export const ALL_TOOLS = [...EXPECTED_TOOLS, ...Object.keys(SETTING_TOOLS)]
  .filter((name) => KEEPS_SESSIONS || !KEPT_SESSION_TOOLS.includes(name));
export const LANGUAGES = ['python', 'javascript', 'java', 'cpp', 'c', 'go', 'r', 'ruby', 'bash'];
