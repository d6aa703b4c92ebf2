// The checks the test clients print: one `ok` line each, or `FAILED` with what differed; `done`
// prints the total and ends the process (exit code 1 when any check failed).
let failures = 0;

export function check(what, ok, detail) {
  if (ok) {
    console.log(`ok ${what}`);
  } else {
    failures += 1;
    console.log(`FAILED ${what}: ${detail}`);
  }
}

export function done() {
  if (failures > 0) {
    console.log(`${failures} check(s) failed`);
    process.exit(1);
  }
  console.log("all checks passed");
}
