def helper():
    return 1


from mod import *

run()
helper()
