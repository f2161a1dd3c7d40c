from .jobs import run_job
