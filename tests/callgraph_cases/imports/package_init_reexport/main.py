import views

html = views.render("home")
