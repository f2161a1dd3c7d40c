class Job:
    def run(self):
        return "start:" + self.step()

    def step(self):
        return "nothing"


class BackupJob(Job):
    def step(self):
        return "backup"


result = BackupJob().run()
