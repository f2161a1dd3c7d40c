from helpers import *

alpha()
beta()
