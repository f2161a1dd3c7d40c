;;; explorer-lsp.el --- explorer's language server in Emacs, through eglot  -*- lexical-binding: t; -*-

;; Usage, in init.el (Emacs 28 with eglot 1.9 or newer; Emacs 29 and later have eglot built in):
;;
;;   (add-to-list 'load-path "~/src/explorer/editors/emacs")
;;   (require 'explorer-lsp)
;;   (explorer-lsp-setup)
;;
;; then `M-x eglot' in a Python, C++, CUDA or YAML buffer (or `eglot-ensure' in those modes'
;; hooks).  What differs from the defaults goes before `explorer-lsp-setup':
;;
;;   (setq explorer-lsp-command '("~/venvs/explorer/bin/explorer" "lsp")  ; explorer not on PATH
;;         explorer-lsp-root "~/src/my_project"        ; the project, whatever the file's folders say
;;         explorer-lsp-init-options '(:trees ["~/src/pytorch"] :pythonEnv "~/venvs/train"))
;;
;; One server runs per project root: the root is `explorer-lsp-root' if set, else the
;; nearest folder above the file holding the first of `explorer-lsp-root-markers' found (a
;; .git above wins over a setup.py nearer the file), else whatever project.el finds.
;; Definitions and implementations (`M-.'), references (`M-?'), workspace symbols
;; (`M-x xref-find-apropos'), hover and document symbols (imenu) work through eglot.  eglot
;; has no call hierarchy (before Emacs 30) and no code lenses: `explorer trace' in a shell
;; gives the chain.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'project)

(defgroup explorer-lsp nil
  "explorer's language server, through eglot."
  :group 'tools)

(defcustom explorer-lsp-command '("explorer" "lsp")
  "The command that starts the server: a program and its arguments."
  :type '(repeat string))

(defcustom explorer-lsp-root nil
  "The project folder, whatever the file's folders say; nil: found from the markers."
  :type '(choice (const nil) directory))

(defcustom explorer-lsp-root-markers '(".git" "explorer.toml" "pyproject.toml" "setup.py" "setup.cfg")
  "Files or folders that mark a project's root, the first found above a file winning."
  :type '(repeat string))

(defcustom explorer-lsp-modes '(python-mode c-mode c++-mode cuda-mode yaml-mode)
  "Major modes whose buffers explorer's server answers for."
  :type '(repeat symbol))

(defcustom explorer-lsp-init-options nil
  "The server's initialization options, as a plist: :trees (a vector of folders, the
CLI's --tree) and :pythonEnv (a Python environment, the CLI's --python-env)."
  :type 'plist)

(defun explorer-lsp--root (directory)
  "The project root of a file in DIRECTORY, or nil where no marker is found."
  (if explorer-lsp-root
      (file-name-as-directory (expand-file-name explorer-lsp-root))
    (cl-some (lambda (marker) (locate-dominating-file directory marker))
             explorer-lsp-root-markers)))

(defun explorer-lsp--project (directory)
  "A project.el project for buffers of `explorer-lsp-modes' only: other buffers keep theirs."
  (when (apply #'derived-mode-p explorer-lsp-modes)
    (let ((root (explorer-lsp--root directory)))
      (when root
        (cons 'explorer-lsp (file-name-as-directory (expand-file-name root)))))))

(cl-defmethod project-root ((project (head explorer-lsp)))
  (cdr project))

(defun explorer-lsp--contact (&optional _interactive)
  "The server's command line, with its initialization options where any are set."
  (append explorer-lsp-command
          (when explorer-lsp-init-options
            (list :initializationOptions explorer-lsp-init-options))))

;;;###autoload
(defun explorer-lsp-setup ()
  "Register explorer's server with eglot for `explorer-lsp-modes', and its project roots."
  (add-hook 'project-find-functions #'explorer-lsp--project)
  (setq eglot-server-programs
        (cons (cons explorer-lsp-modes #'explorer-lsp--contact)
              (cl-remove-if (lambda (entry) (eq (cdr entry) #'explorer-lsp--contact))
                            eglot-server-programs))))

(provide 'explorer-lsp)
;;; explorer-lsp.el ends here
