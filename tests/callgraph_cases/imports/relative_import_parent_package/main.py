from outer.inner.worker import work

work(15)
