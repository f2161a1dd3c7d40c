;;; eglot_probe.el --- what a user of editors/emacs/explorer-lsp.el sees, recorded as JSON  -*- lexical-binding: t; -*-

;; Run by tests/test_emacs_config.py: emacs --batch -l THIS, with
;; EXPLORER_EMACS_CONFIG (the folder of explorer-lsp.el), EXPLORER_EMACS_COMMAND (the server's
;; command line, JSON), EXPLORER_EMACS_ROOT (a copy of the bundled tree, no .git) and
;; EXPLORER_EMACS_OUT (where the answers go).

(require 'cl-lib)
(require 'json)
(require 'xref)

(add-to-list 'load-path (getenv "EXPLORER_EMACS_CONFIG"))
(require 'explorer-lsp)

(defvar probe-root (file-name-as-directory (getenv "EXPLORER_EMACS_ROOT")))
(defvar probe-answers nil)

(defun probe-say (key value)
  (push (cons key value) probe-answers))

(defun probe-locations (items)
  "Each xref item as (file relative to the root, line)."
  (mapcar (lambda (item)
            (let ((location (xref-item-location item)))
              (vector (file-relative-name (xref-location-group location) probe-root)
                      (xref-location-line location))))
          items))

(defun probe-until (answer)
  "ANSWER's first non-nil result, asked again every half second for a minute: the server
answers nothing until it has indexed the tree (a progress message says so)."
  (cl-loop repeat 120
           for found = (funcall answer)
           when found return found
           do (sleep-for 0.5)))

(defun probe-open (relative)
  (find-file (expand-file-name relative probe-root))
  (current-buffer))

(setq explorer-lsp-command (append (json-read-from-string (getenv "EXPLORER_EMACS_COMMAND")) nil)
      eglot-sync-connect t
      eglot-connect-timeout 120)
(explorer-lsp-setup)

(condition-case failure
    (progn
      ;; the project of a file: the tree (setup.py at its top), and a nearer setup.py's
      ;; folder unless explorer-lsp-root says otherwise
      (with-current-buffer (probe-open "torch/nn/modules/conv.py")
        (probe-say 'conv_root (file-relative-name (project-root (project-current)) probe-root)))
      (with-current-buffer (probe-open "mini_ops/ops.py")
        (probe-say 'nested_root (file-relative-name (project-root (project-current)) probe-root))
        (let ((explorer-lsp-root probe-root))
          (probe-say 'nested_root_given (file-relative-name (project-root (project-current)) probe-root))))
      (with-current-buffer (probe-open "torch/nn/modules/conv.py")
        (apply #'eglot (eglot--guess-contact))
        (let ((server (eglot-current-server)))
          (probe-say 'server_command (process-command (jsonrpc--process server)))
          ;; `F.conv2d(` in Conv2d._conv_forward: definition, then workspace symbols
          (goto-char (point-min))
          (search-forward "F.conv2d(")
          (backward-char 3)
          (probe-say 'definition (probe-locations (probe-until (lambda () (xref-backend-definitions
                                                                              'eglot (xref-backend-identifier-at-point 'eglot))))))
          (probe-say 'symbols (probe-locations (probe-until (lambda () (xref-backend-apropos 'eglot "cudnn_convolution_forward_out")))))
          ;; a second file of the project: the same server
          (with-current-buffer (probe-open "torch/nn/functional.py")
            (eglot--maybe-activate-editing-mode)
            (probe-say 'same_server (eq (eglot-current-server) server)))
          (probe-say 'servers (length (gethash (project-current) eglot--servers-by-project)))
          (eglot-shutdown server))))
  (error (probe-say 'error (error-message-string failure))))

(with-temp-file (getenv "EXPLORER_EMACS_OUT")
  (insert (json-encode probe-answers)))
(kill-emacs 0)
