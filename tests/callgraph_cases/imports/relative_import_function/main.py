from lib.api import handle

print(handle(2))
