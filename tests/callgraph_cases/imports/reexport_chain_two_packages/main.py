from api import run_job

run_job(3)
