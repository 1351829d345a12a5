// Type-checks and runs README examples in the app of install.ts: each block
// as a user would write it, an ES module, with Node.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { Example } from './blocks.js';
import { exampleName } from './blocks.js';

/** The port a README's examples are written with, and the one they run on instead. */
export interface PortSwap {
  readonly from: number;
  readonly to: number;
}

/** Writes each example as `<app>/<name>.ts` (with its README's port swapped) and type-checks them together; resolves with the diagnostics. */
export function typeCheck(app: string, examples: readonly Example[], ports: ReadonlyMap<string, PortSwap>): string[] {
  const files = examples.map((example) => {
    const file = join(app, `${exampleName(example)}.ts`);
    writeFileSync(file, `${withPorts(example, ports)}\nexport {};\n`);
    return file;
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    esModuleInterop: true,
  };
  const program = ts.createProgram(files, options);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.includes(d.file.fileName) || d.file.fileName.includes('/@taskwire/'))
    .map((d) => `${d.file ? `${d.file.fileName}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/** The example's code with the port its README is written with replaced by the one it runs on. */
function withPorts(example: Example, ports: ReadonlyMap<string, PortSwap>): string {
  const swap = ports.get(example.readme);
  return swap === undefined ? example.code : example.code.replaceAll(String(swap.from), String(swap.to));
}

/** What a run printed, and how it ended. */
export interface Outcome {
  readonly code: number | null;
  readonly output: string;
}

/** A running example and its output so far. */
export interface Running {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves when it exits. */
  readonly exited: Promise<Outcome>;
}

/** Starts an example (transpiled to `<app>/<name>.mjs`) with Node (`node`, default this one) in `app`, with `env` added to the environment. */
export function start(app: string, example: Example, ports: ReadonlyMap<string, PortSwap>, env: Readonly<Record<string, string>>, node = process.execPath): Running {
  const { outputText } = ts.transpileModule(withPorts(example, ports), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  });
  const file = join(app, `${exampleName(example)}.mjs`);
  writeFileSync(file, outputText);
  const child = spawn(node, [file], { cwd: app, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<Outcome>((resolve) => child.once('exit', (code) => resolve({ code, output })));
  return { child, output: () => output, exited };
}

/** Runs an example to its end; rejects, with its output, when it exits with an error or outlasts `limitMs`. */
export async function runToEnd(running: Running, example: Example, limitMs: number): Promise<Outcome> {
  const timer = setTimeout(() => running.child.kill('SIGKILL'), limitMs);
  const outcome = await running.exited.finally(() => clearTimeout(timer));
  if (outcome.code !== 0) {
    throw new Error(`${example.readme} example ${example.index + 1} ${outcome.code === null ? `ran over ${limitMs} ms` : `exited with ${outcome.code}`}:\n${outcome.output}`);
  }
  return outcome;
}

/** Waits until a serving example prints its ready text; rejects with its output when it exits first. */
export function whenReady(running: Running, example: Example): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (running.output().includes(example.serves!)) {
        running.child.stdout!.off('data', check);
        resolve();
      }
    };
    running.child.stdout!.on('data', check);
    check();
    void running.exited.then(({ code, output }) => reject(new Error(`${example.readme} example ${example.index + 1} exited (${code}) before it printed "${example.serves}":\n${output}`)));
  });
}
