from studcheck.cli import main

raise SystemExit(main())
