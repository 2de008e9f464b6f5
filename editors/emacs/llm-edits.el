;;; llm-edits.el --- Apply an LLM response's edit blocks through eglot  -*- lexical-binding: t; -*-

;; Commands for the llm-edits language server (python -m lsp_server) run through eglot:
;;
;;   M-x llm-edits-apply      apply the response in the region (or the whole buffer)
;;   M-x llm-edits-preview    show the proposed changes as a unified diff (nothing changes)
;;   M-x llm-edits-feedback   put retry feedback for the model on the kill ring
;;   M-x llm-edits-mcp-config show the agents' MCP endpoint and each agent's configuration
;;                            (needs the server setting mcp, see docs/agents.md)
;;
;; With a prefix argument (C-u) each asks which blocks to run ("1,3-5", numbered from 1 as the
;; summaries count them; empty: every block), the others being reported excluded, and the
;; target: the file every code block of the response that names no file is for (a chat
;; answer's plain code fence; the last file buffer is offered, empty: none).
;;
;; Shell commands a response suggests are listed in the *llm-edits shell* buffer, never run
;; unless you press RET on one and confirm.
;;
;; Setup (see docs/editors.md): make eglot start the server for the modes of your project files,
;; connect with M-x eglot in one of them, then run the commands from any buffer of the project:
;;
;;   (add-to-list 'eglot-server-programs
;;                '((python-mode python-ts-mode) . ("python3" "-m" "lsp_server")))
;;   (load "/path/to/llm-edits/editors/emacs/llm-edits.el")

;;; Code:

(require 'eglot)
(require 'project)
(require 'seq)
(require 'subr-x)

(defgroup llm-edits nil
  "Apply an LLM response's edit blocks through the llm-edits language server."
  :group 'tools)

(defcustom llm-edits-options nil
  "Options sent with every llm-edits command, a plist.
For example (:matching \"whitespace\" :atomic t); see docs/protocol.md."
  :type 'plist)

(defcustom llm-edits-stage-in-git nil
  "Non-nil: after an apply, save the buffers it changed and `git add' its files.
Staging stages what is on disk: each changed buffer is saved first, with any
unsaved changes it held before the apply.  Files the apply deleted or renamed
away are staged as removed.  Other files, saved or not, are left alone."
  :type 'boolean)

(defun llm-edits--server ()
  "The eglot server for the current buffer, or else for the current project."
  (or (eglot-current-server)
      (when-let ((project (project-current)))
        (car (gethash project eglot--servers-by-project)))
      (user-error "No eglot server: open a project file and connect llm-edits with M-x eglot")))

(defun llm-edits--response (beg end)
  "The response text between BEG and END, or the whole buffer when they are nil."
  (buffer-substring-no-properties (or beg (point-min)) (or end (point-max))))

(defun llm-edits--region-or-buffer ()
  "Interactive arguments: the active region, or nil for the whole buffer.
With a prefix argument, two more read in the minibuffer: the blocks to run
and the target file (each nil when left empty)."
  (append (if (use-region-p) (list (region-beginning) (region-end)) (list nil nil))
          (and current-prefix-arg
               (let ((blocks (read-string "Blocks (e.g. 1,3-5; empty: every block): ")))
                 (list (unless (string-blank-p blocks) blocks)
                       (llm-edits--read-target))))))

(defun llm-edits--last-file-buffer ()
  "The file of the most recently used buffer, other than this one, visiting a file."
  (seq-some (lambda (buffer)
              (and (not (eq buffer (current-buffer))) (buffer-file-name buffer)))
            (buffer-list)))

(defun llm-edits--read-target ()
  "The target file read in the minibuffer (the last file buffer offered), or nil."
  (let* ((last (llm-edits--last-file-buffer))
         (file (read-file-name "Apply code blocks naming no file to (empty: none): "
                               nil "" nil (and last (file-relative-name last)))))
    (unless (string-blank-p file)
      (expand-file-name file))))

(defun llm-edits--target-options (target)
  "Command options for TARGET (a file name, or nil): the file every code block of
the response that names no file is for, as a file: URI."
  (when target
    (list :target (if (fboundp 'eglot-path-to-uri)
                      (eglot-path-to-uri (expand-file-name target))
                    (eglot--path-to-uri (expand-file-name target))))))

;;; Choosing blocks: "1,3-5" (numbered from 1) -> options.blocks (0-based)

(defun llm-edits--block-range (part)
  "The block numbers PART (\"3\" or \"3-5\") names, from 1; `user-error' if bad."
  (unless (string-match "\\`\\([0-9]+\\)\\(?:-\\([0-9]+\\)\\)?\\'" part)
    (user-error "llm-edits: blocks: \"%s\" is not a block number or a range like 3-5" part))
  (let* ((low (string-to-number (match-string 1 part)))
         (high (if (match-string 2 part) (string-to-number (match-string 2 part)) low)))
    (cond ((< low 1) (user-error "llm-edits: blocks: \"%s\": blocks are numbered from 1" part))
          ((< high low) (user-error "llm-edits: blocks: \"%s\": a range goes from the lower \
number to the higher" part)))
    (number-sequence low high)))

(defun llm-edits-parse-blocks (text)
  "The block numbers TEXT names (\"1,3-5\" -> (1 3 4 5)), in the order given.
A part that is not a number or range, 0, a backward range or a block named twice
is a `user-error' naming it."
  (when (string-blank-p text)
    (user-error "llm-edits: blocks: no block numbers given (e.g. 1,3-5)"))
  (let ((numbers nil))
    (dolist (part (split-string text "," nil "[ \t]+"))
      (when (string-empty-p part)
        (user-error "llm-edits: blocks: \"%s\" has an empty entry (e.g. 1,3-5)" text))
      (dolist (number (llm-edits--block-range part))
        (when (memq number numbers)
          (user-error "llm-edits: blocks: block %d is named twice" number))
        (push number numbers)))
    (nreverse numbers)))

(defun llm-edits--block-options (blocks)
  "Command options running BLOCKS (a string like \"1,3-5\", a list of block numbers
from 1, or nil for every block)."
  (when blocks
    (let ((numbers (llm-edits-parse-blocks
                    (if (stringp blocks) blocks (mapconcat #'number-to-string blocks ",")))))
      (list :blocks (vconcat (mapcar #'1- numbers))))))

(defun llm-edits--user-message (message)
  "MESSAGE, naming a block the response lacks from 1 (the server counts from 0)."
  (if (string-match "there is no block \\([0-9]+\\): the response has \\([0-9]+\\) block"
                    message)
      (let ((index (string-to-number (match-string 1 message)))
            (count (string-to-number (match-string 2 message))))
        (format "there is no block %d: the response has %d block%s (valid: %s)"
                (1+ index) count (if (= count 1) "" "s")
                (if (> count 0) (format "1-%d" count) "none")))
      message))

(defun llm-edits-run (command response &optional options)
  "Run llm-edits COMMAND with RESPONSE text and OPTIONS (a plist).
Return the result plist.  The call is synchronous; eglot applies the edit the
server sends meanwhile (it may ask for confirmation, see
`eglot-confirm-server-initiated-edits' / `eglot-confirm-server-edits')."
  (let ((server (llm-edits--server))
        (merged (append options llm-edits-options))
        (argument (list :response response)))
    (when merged
      (setq argument (append argument (list :options merged))))
    ;; eglot sends didChange on an idle timer: send what is pending now, so the server plans
    ;; against what the buffers show, unsaved changes included.
    (dolist (buffer (eglot--managed-buffers server))
      (with-current-buffer buffer
        (eglot--signal-textDocument/didChange)))
    (if (plist-member options :blocks)
        ;; A block the response lacks is the server's InvalidParams: say it from 1.
        (condition-case err
            (eglot-execute-command server command (vector argument))
          (jsonrpc-error
           (let ((message (alist-get 'jsonrpc-error-message (cdr err))))
             (if (and (stringp message)
                      (not (equal (llm-edits--user-message message) message)))
                 (user-error "llm-edits: blocks: %s" (llm-edits--user-message message))
               (signal (car err) (cdr err))))))
      (eglot-execute-command server command (vector argument)))))

(defconst llm-edits--status-order
  '("applied" "already-applied" "validated" "failed" "skipped" "excluded")
  "Block statuses in the order summaries list them.
A status the server adds later follows these.")

(defun llm-edits--status-label (status)
  "How a summary names STATUS."
  (if (equal status "already-applied") "already applied" status))

(defun llm-edits--summary (result)
  "A one-line summary of RESULT's block statuses."
  (let ((counts nil))
    (seq-doseq (block (plist-get result :blocks))
      (let ((status (plist-get block :status)))
        (setf (alist-get status counts 0 nil #'equal)
              (1+ (alist-get status counts 0 nil #'equal)))))
    (if counts
        (let ((order (append llm-edits--status-order
                             (seq-difference (nreverse (mapcar #'car counts))
                                             llm-edits--status-order))))
          (concat (if (equal (mapcar #'car counts) '("excluded")) "no block chosen, " "")
                  (mapconcat (lambda (status)
                               (format "%d %s" (alist-get status counts nil nil #'equal)
                                       (llm-edits--status-label status)))
                             (seq-filter (lambda (status) (assoc status counts)) order)
                             ", ")))
      "no edit blocks found")))

;;; Git staging (`llm-edits-stage-in-git')

(defun llm-edits--uri-path (uri)
  "The local file name of URI."
  (file-local-name (llm-edits--path uri)))

(defun llm-edits--edit-paths (edit)
  "The files EDIT (a WorkspaceEdit plist) changes, as (WRITTEN . GONE).
WRITTEN: files whose text it edits or that it creates (or renames to);
GONE: files it deletes or renames away."
  (let (written gone)
    (seq-doseq (change (plist-get edit :documentChanges))
      (pcase (plist-get change :kind)
        ('nil (push (llm-edits--uri-path (plist-get (plist-get change :textDocument) :uri))
                    written))
        ("create" (push (llm-edits--uri-path (plist-get change :uri)) written))
        ("rename" (push (llm-edits--uri-path (plist-get change :newUri)) written)
                  (push (llm-edits--uri-path (plist-get change :oldUri)) gone))
        ("delete" (push (llm-edits--uri-path (plist-get change :uri)) gone))))
    ;; The `changes' map: its keys are the URIs, read as keywords.
    (let ((changes (plist-get edit :changes)))
      (while changes
        (push (llm-edits--uri-path (substring (symbol-name (car changes)) 1)) written)
        (setq changes (cddr changes))))
    (cons (delete-dups (nreverse written)) (delete-dups (nreverse gone)))))

(defun llm-edits--git (&rest args)
  "Run git with ARGS in `default-directory'; nil on success, else git's output."
  (with-temp-buffer
    (if (eql 0 (apply #'process-file "git" nil t nil args))
        nil
      (string-trim (buffer-string)))))

(defun llm-edits--stage (edit root)
  "Save the buffers EDIT changed and stage its files in ROOT's Git repository.
Return a note for the summary message."
  (pcase-let ((`(,written . ,gone) (llm-edits--edit-paths edit))
              (default-directory root))
    (dolist (path written)
      (let ((buffer (find-buffer-visiting path)))
        (when (and buffer (buffer-modified-p buffer))
          (with-current-buffer buffer
            (save-buffer)))))
    (let* ((paths (append written gone))
           (present (seq-filter #'file-exists-p paths))
           (missing (seq-remove #'file-exists-p paths))
           ;; A path gone from disk is staged as removed when Git tracks it; `git add' would
           ;; refuse the whole list over an untracked one.
           (failure (or (and present (apply #'llm-edits--git "add" "--" present))
                        (and missing (apply #'llm-edits--git "rm" "--cached" "--quiet"
                                            "--ignore-unmatch" "--" missing)))))
      (if failure
          (format "; not staged: %s" failure)
        (format "; staged %d file%s in Git"
                (length paths) (if (= (length paths) 1) "" "s"))))))

;;; Shell suggestions: shown in a buffer, run only one at a time and after asking

(defconst llm-edits-shell-buffer "*llm-edits shell*"
  "The buffer listing the shell commands the last response suggested.")

(defconst llm-edits-shell-output-buffer "*llm-edits shell output*"
  "The buffer collecting the output of the suggested commands you ran.")

(defvar llm-edits-shell-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'llm-edits-shell-run)
    map)
  "Keymap of `llm-edits-shell-mode'.")

(define-derived-mode llm-edits-shell-mode special-mode "llm-edits shell"
  "The shell commands an LLM response suggested; none runs unless you confirm.
\\<llm-edits-shell-mode-map>\\[llm-edits-shell-run] on a command runs it in the project root \
after a y-or-n question;
its output goes to `llm-edits-shell-output-buffer'.")

(defun llm-edits--shell-commands (result)
  "RESULT's suggested shell commands as (DISPLAY . PARTS), PARTS a list of (COMMAND . DISPLAY).
The server splits each suggestion into the commands a shell would run and writes what is
not plainly visible as <U+XXXX> (`shellCommands'): only that display text is shown.  A
server that sends no `shellCommands' gets nothing listed to run."
  (let (out)
    (dolist (suggestion (append (plist-get result :shellCommands) nil) (nreverse out))
      (let ((display (plist-get suggestion :display))
            (parts (mapcar (lambda (part)
                             (cons (plist-get part :command) (plist-get part :display)))
                           (append (plist-get suggestion :parts) nil))))
        (when (and (stringp display) parts
                   (seq-every-p (lambda (part) (and (stringp (car part)) (stringp (cdr part))))
                                parts))
          (push (cons display parts) out))))))

(defun llm-edits--insert-shell-command (prefix part)
  "Insert PART (COMMAND . DISPLAY) on a line of its own after PREFIX, RET-able."
  (insert (propertize (concat prefix (cdr part))
                      'llm-edits-command (car part) 'llm-edits-display (cdr part))
          "\n"))

(defun llm-edits--shell-suggestions (result root)
  "Show RESULT's shell suggestions in `llm-edits-shell-buffer' (run in ROOT).
A compound suggestion is listed with each command a shell would run on a line of its
own, each run on its own.  Return how many suggestions there are; with none the buffer
is left alone."
  (let ((commands (llm-edits--shell-commands result)))
    (when commands
      (with-current-buffer (get-buffer-create llm-edits-shell-buffer)
        (let ((inhibit-read-only t))
          (erase-buffer)
          (llm-edits-shell-mode)
          (setq default-directory root)
          (insert "Shell commands the response suggests (not run). "
                  "RET on one runs it in " (abbreviate-file-name root) " after asking.\n\n")
          (dolist (command commands)
            (let ((parts (cdr command)))
              (if (null (cdr parts))
                  (llm-edits--insert-shell-command "" (car parts))
                (insert (car command)
                        (format "  (%d commands, each run on its own)\n" (length parts)))
                (seq-do-indexed (lambda (part index)
                                  (llm-edits--insert-shell-command
                                   (format "  %d. " (1+ index)) part))
                                parts))))
          (goto-char (point-min))
          (forward-line 2)))
      (display-buffer llm-edits-shell-buffer))
    (length commands)))

(defun llm-edits--shell-note (count)
  "The part of a summary message that points at COUNT suggested commands."
  (if (> count 0)
      (format "; %d suggested shell command%s (not run) in %s"
              count (if (= count 1) "" "s") llm-edits-shell-buffer)
    ""))

(defun llm-edits-shell-run (command &optional display)
  "Run the suggested shell COMMAND (the one at point) after asking.
The question shows DISPLAY, the server's display text of COMMAND (invisible and control
characters as <U+XXXX>, long runs of spaces as <N spaces>).  It runs in
`default-directory' (the project root in `llm-edits-shell-buffer').  Return its process,
or nil when you said no.  Output goes to `llm-edits-shell-output-buffer'."
  (interactive (let ((at (line-beginning-position)))
                 (list (or (get-text-property at 'llm-edits-command)
                           (user-error "No suggested command on this line"))
                       (get-text-property at 'llm-edits-display))))
  (let ((shown (or display command)))
    (when (y-or-n-p (format "Run `%s' in %s? " shown
                            (abbreviate-file-name default-directory)))
      (let ((output (get-buffer-create llm-edits-shell-output-buffer)))
        (with-current-buffer output
          (goto-char (point-max))
          (insert "$ " shown "\n"))
        (display-buffer output)
        (make-process
         :name "llm-edits shell"
         :buffer output
         :command (list shell-file-name shell-command-switch command)
         :sentinel (lambda (process _event)
                     (unless (process-live-p process)
                       (with-current-buffer (process-buffer process)
                         (goto-char (point-max))
                         (insert (format "[exit %d]\n" (process-exit-status process)))))))))))

(defun llm-edits-apply (beg end &optional blocks target)
  "Apply the LLM response in the region (or the whole buffer) to the project.
Failed blocks are published as diagnostics (Flymake) in their files.  With
`llm-edits-stage-in-git', the changed files are saved and staged afterwards.
BLOCKS (asked for with a prefix argument): run only these blocks, a string like
\"1,3-5\" or a list of block numbers, from 1; the others are reported excluded.
TARGET (also asked for with a prefix argument): the file every code block of
the response that names no file is for."
  (interactive (llm-edits--region-or-buffer))
  (let* ((root (project-root (project-current t)))
         (result (llm-edits-run "llmEdits.apply" (llm-edits--response beg end)
                                (append (llm-edits--block-options blocks)
                                        (llm-edits--target-options target)))))
    ;; `applied' is false as well when there was nothing to apply (no edit).
    (message "llm-edits: %s%s%s%s" (llm-edits--summary result)
             (if (and (plist-get result :edit) (eq (plist-get result :applied) :json-false))
                 " (the edit was not applied)"
               "")
             (if (and llm-edits-stage-in-git (plist-get result :edit)
                      (eq (plist-get result :applied) t))
                 (llm-edits--stage (plist-get result :edit) root)
               "")
             (llm-edits--shell-note (llm-edits--shell-suggestions result root)))
    result))

(defun llm-edits--path (uri)
  "The file name of URI (eglot's public function where it has one)."
  (if (fboundp 'eglot-uri-to-path) (eglot-uri-to-path uri) (eglot--uri-to-path uri)))

(defun llm-edits--diff (file)
  "A unified diff of FILE's oldText and newText.
FILE is one entry of a result's files."
  (let ((old (make-temp-file "llm-edits-old"))
        (new (make-temp-file "llm-edits-new"))
        (label (file-relative-name (llm-edits--path (or (plist-get file :newUri)
                                                       (plist-get file :uri))))))
    (unwind-protect
        (progn
          (with-temp-file old (insert (or (plist-get file :oldText) "")))
          (with-temp-file new (insert (or (plist-get file :newText) "")))
          (with-temp-buffer
            (call-process "diff" nil t nil "-u" "--label" (concat "a/" label)
                          "--label" (concat "b/" label) old new)
            (buffer-string)))
      (delete-file old)
      (delete-file new))))

(defun llm-edits-preview (beg end &optional blocks target)
  "Show what the LLM response in the region (or the whole buffer) would change.
BLOCKS and TARGET (asked for with a prefix argument): as for `llm-edits-apply'."
  (interactive (llm-edits--region-or-buffer))
  (let* ((root (project-root (project-current t)))
         (result (llm-edits-run "llmEdits.preview" (llm-edits--response beg end)
                                (append '(:includeText t) (llm-edits--block-options blocks)
                                        (llm-edits--target-options target))))
         (buffer (get-buffer-create "*llm-edits preview*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (setq default-directory root)
        (seq-doseq (file (plist-get result :files))
          (insert (llm-edits--diff file))))
      (diff-mode)
      (setq buffer-read-only t))
    (display-buffer buffer)
    (message "llm-edits preview: %s%s" (llm-edits--summary result)
             (llm-edits--shell-note (llm-edits--shell-suggestions result root)))
    result))

(defun llm-edits-feedback (beg end &optional blocks target)
  "Put retry feedback for the model on the kill ring.
The response is the region, or the whole buffer.  BLOCKS (asked for with a
prefix argument), and TARGET: as for `llm-edits-apply'."
  (interactive (llm-edits--region-or-buffer))
  (let* ((result (llm-edits-run "llmEdits.feedback" (llm-edits--response beg end)
                                (append (llm-edits--block-options blocks)
                                        (llm-edits--target-options target))))
         (text (plist-get result :text)))
    (kill-new text)
    (message "llm-edits: retry feedback (%d lines) is on the kill ring"
             (length (split-string text "\n")))
    text))

(defun llm-edits-mcp-config ()
  "Show the server's MCP endpoint for agents in the *llm-edits mcp* buffer.
The URL, the bearer token and the configuration each agent takes.  The server
serves it once its setting mcp is on, for example with
  (setq-default eglot-workspace-configuration \='(:llmEdits (:mcp (:enabled t))))
See docs/agents.md."
  (interactive)
  (let* ((result (eglot-execute-command (llm-edits--server) "llmEdits.mcpEndpoint"
                                        (vector (make-hash-table))))
         (configs (plist-get result :configs))
         (buffer (get-buffer-create "*llm-edits mcp*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert "# LLM Edits MCP endpoint\n\n"
                (format "URL:   %s\nToken: %s\n" (plist-get result :url)
                        (plist-get result :token)))
        (while configs  ; a plist: :|Claude Code| "text" ...
          (insert (format "\n## %s\n\n%s" (substring (symbol-name (car configs)) 1)
                          (cadr configs)))
          (setq configs (cddr configs))))
      (goto-char (point-min))
      (setq buffer-read-only t))
    (display-buffer buffer)
    result))

(provide 'llm-edits)
;;; llm-edits.el ends here
