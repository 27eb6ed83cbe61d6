#pragma once
// The tune database's tables (docs/tune.md, "The database"), created in one transaction with
// application_id and user_version (tune_db.cpp). A change of any table is a new kTuneDbVersion: a
// database of another version is refused with one line, never migrated silently.
namespace sassx::tune {

// 'SASX': what PRAGMA application_id holds in a sassx tune database (sqlite.org/pragma.html).
inline constexpr int kTuneDbApplicationId = 0x53415358;

// Schema version 1 (docs/tune.md). Edits, configs and reports are JSON text; times are UTC ISO 8601.
inline constexpr const char* kTuneDbSchema = R"sql(
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,            -- the baseline's device: a GPU's name, or "model" for the estimate
  backend TEXT NOT NULL,         -- "gpu" or "estimate"
  first_seen TEXT NOT NULL,
  UNIQUE (name, backend));
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,     -- the plan's key (capture name or spec stem)
  spec TEXT NOT NULL,
  cubin TEXT NOT NULL,
  time_share REAL NOT NULL,      -- of the program's GPU time (equal shares without a capture)
  gpu_time_us REAL NOT NULL,
  launches INTEGER NOT NULL,
  triton_entries TEXT NOT NULL,  -- JSON array of Triton cache entry directories
  shares_note TEXT NOT NULL,     -- where time_share came from
  skipped TEXT NOT NULL);        -- why the plan cannot tune it ('' when it can)
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  device_id INTEGER REFERENCES devices(id),
  status TEXT NOT NULL,          -- running | stopped | finished | failed (tune_status.h, RunStatus); the
                                 -- report adds interrupted (running, its owner process gone), and
                                 -- skipped / not run for kernels without a run
  out_dir TEXT NOT NULL,
  config TEXT NOT NULL,          -- the search's configuration (JSON)
  backend TEXT NOT NULL,
  started TEXT NOT NULL,
  updated TEXT NOT NULL,
  owner TEXT NOT NULL DEFAULT '', -- host:pid of the process that started or resumed it last
  resumed INTEGER NOT NULL DEFAULT 0,
  evaluations INTEGER NOT NULL DEFAULT 0,
  seconds REAL NOT NULL DEFAULT 0,
  summary TEXT NOT NULL DEFAULT '',
  error TEXT NOT NULL DEFAULT '',
  report TEXT);                  -- the run's report.json
CREATE INDEX runs_kernel ON runs(kernel_id);
CREATE TABLE evaluations (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  step INTEGER NOT NULL,
  seconds REAL NOT NULL,
  base INTEGER NOT NULL,
  kind TEXT NOT NULL,
  outcome TEXT NOT NULL,
  is_best INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  speedup REAL NOT NULL,         -- > 1 = faster, against the original
  low REAL NOT NULL,
  high REAL NOT NULL,
  rounds INTEGER NOT NULL,       -- 0: a deterministic estimate
  noise_floor REAL NOT NULL,
  source TEXT NOT NULL,
  failure TEXT NOT NULL,
  edits TEXT NOT NULL,           -- JSON array, applied to the schedule of step `base`
  json TEXT NOT NULL,            -- the whole evaluation (search_state.h), what history.csv is made from
  PRIMARY KEY (run_id, step));
CREATE TABLE bests (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id),
  improved INTEGER NOT NULL,
  speedup REAL NOT NULL,
  low REAL NOT NULL,
  high REAL NOT NULL,
  rounds INTEGER NOT NULL,
  noise_floor REAL NOT NULL,
  source TEXT NOT NULL,
  verified INTEGER,              -- 1 correct on fresh inputs, 0 wrong, NULL not checked
  verification TEXT NOT NULL,
  edits TEXT NOT NULL,
  cubin TEXT NOT NULL,
  written_back TEXT NOT NULL DEFAULT '');
)sql";

} // namespace sassx::tune
