class MathUtil:
    @staticmethod
    def clamp(value, low, high):
        return max(low, min(value, high))


a = MathUtil.clamp(15, 0, 10)
b = MathUtil().clamp(-3, 0, 10)
