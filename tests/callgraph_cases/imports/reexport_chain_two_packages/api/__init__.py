from engine import run_job
