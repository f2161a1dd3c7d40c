from app import runner

runner.start()
