from explorer.cli import main

main()
